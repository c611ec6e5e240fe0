/* The one INI reader (config/ini.h) in both dialects, with the list and
 * scalar parsers every value goes through. What it promises: a document or
 * one line saying why; section names that are labels, given once; keys
 * given once a section, each with the line it starts on. */
#include "config/ini.h"
#include "tests/fuzz/fuzz.h"

static const pb_ini_dialect dialects[] = {
    {"sweep", NULL, NULL},
    {"quality", "sweep", "[sweep] belongs to 'permbench run' configs"},
};

static void check_section(const pb_ini_section *s, int lines)
{
    PB_FUZZ_ASSERT(s->name && s->line >= 1 && s->line <= lines);
    for (size_t k = 0; k < s->nkeys; k++) {
        const pb_ini_key *key = &s->keys[k];
        PB_FUZZ_ASSERT(key->name && key->value && key->line > s->line && key->line <= lines);
        for (size_t j = 0; j < k; j++) PB_FUZZ_ASSERT(strcmp(s->keys[j].name, key->name) != 0);
        char **words;
        size_t n;
        pb_err err;
        pb_fuzz_err_clear(&err);
        if (pb_ini_words(key->value, &words, &n, &err) == 0) {
            PB_FUZZ_ASSERT(n >= 1);
            for (size_t w = 0; w < n; w++) PB_FUZZ_ASSERT(words[w][0] != '\0');
            pb_ini_words_free(words, n);
        } else {
            pb_fuzz_check_err(&err);
        }
        bool b;
        uint64_t u;
        double d;
        (void)pb_ini_parse_bool(key->value, &b);
        (void)pb_ini_parse_u64(key->value, &u);
        (void)pb_ini_parse_double(key->value, &d);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = pb_fuzz_text(data, size);
    if (!text) return 0;
    int lines = 1;
    for (size_t i = 0; i < size; i++) lines += text[i] == '\n';
    for (size_t d = 0; d < sizeof dialects / sizeof dialects[0]; d++) {
        pb_ini doc;
        pb_err err;
        pb_fuzz_err_clear(&err);
        if (pb_ini_load_text("fuzz.ini", "fuzz", text, &dialects[d], &doc, &err)) {
            pb_fuzz_check_err(&err);
            continue;
        }
        PB_FUZZ_ASSERT(doc.text && strcmp(doc.text, text) == 0);
        PB_FUZZ_ASSERT(doc.hash == pb_fnv1a64(text, size));
        if (doc.head.line) {
            PB_FUZZ_ASSERT(strcmp(doc.head.name, dialects[d].head) == 0);
            check_section(&doc.head, lines);
        }
        for (size_t i = 0; i < doc.nsecs; i++) {
            PB_FUZZ_ASSERT(pb_label_valid(doc.secs[i].name));
            for (size_t j = 0; j < i; j++)
                PB_FUZZ_ASSERT(strcmp(doc.secs[i].name, doc.secs[j].name) != 0);
            check_section(&doc.secs[i], lines);
        }
        pb_ini_free(&doc);
    }
    free(text);
    return 0;
}
