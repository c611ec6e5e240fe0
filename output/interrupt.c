#include "output/interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
    caught = sig;
    /* The next one is not asked politely: the default action ends us. */
    signal(sig, SIG_DFL);
}

void pb_interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* A signal the parent chose to ignore (a background job of a shell
     * without job control ignores SIGINT) stays ignored. */
    int sigs[] = {SIGINT, SIGTERM};
    for (int i = 0; i < 2; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

bool pb_interrupted(void) { return caught != 0; }

int pb_interrupt_signal(void) { return (int)caught; }
