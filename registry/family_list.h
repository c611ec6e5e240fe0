/* The family registry, one line per family (as module_list.h for modules).
 *
 * Adding a family is writing its folder families/<id>/, which defines
 * `const pb_family pb_family_<id>` (core/family.h), and adding one
 * PB_FAMILY(<id>) line here. */
PB_FAMILY(shuffle)
PB_FAMILY(multisplit)
PB_FAMILY(topk)
PB_FAMILY(tile)
