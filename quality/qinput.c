#include "quality/qinput.h"

#include <string.h>

#include "families/shuffle/shuffle_family.h"

const pb_module pb_qinput_module = {
    .name = "input",
    .family = &pb_family_shuffle,
    .device = PB_DEVICE_CPU, /* read on the host: never "unavailable" */
    .summary = "permutations read from a file or standard input",
};

bool pb_instance_is_input(const pb_instance *in) { return in->mod == &pb_qinput_module; }

const char *pb_qinstance_device(const pb_instance *in)
{
    return pb_instance_is_input(in) ? "external" : pb_device_name(in->mod->device);
}
