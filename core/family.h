/* The family descriptor: what the harness knows of a kind of problem
 * (shuffle, multisplit, top-k) without a switch on its name anywhere.
 *
 * Each family defines one `const pb_family pb_family_<id>` in its folder
 * (families/<id>/) and is named once in registry/family_list.h; a module
 * points at its family. Everything family-specific that the sweep, the
 * tables and the checks need is here: the items a sweep may ask for, the
 * bytes an algorithm must move at least (the bandwidth bound), which
 * ceilings run beside its modules, and the contract check. */
#ifndef PB_FAMILY_H
#define PB_FAMILY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pb_module;
struct pb_point;

/* The ceilings: a module may be its device's bound of one kind (the copy
 * every row's pct_of_copy refers to, the random gather of the shuffle
 * papers). A family asks for the kinds that bound its modules. */
typedef enum pb_bound { PB_BOUND_NONE, PB_BOUND_COPY, PB_BOUND_GATHER, PB_NBOUNDS } pb_bound;
#define PB_BOUNDS(b) (1u << (b))

/* What an item is, beyond its width: a scalar (an integer, a key, a
 * key-value pair) every module of its family takes, or a record of bytes
 * that moves as a whole and only modules that say so take
 * (pb_module.items). */
typedef enum pb_item_class { PB_ITEM_SCALAR, PB_ITEM_RECORD, PB_NITEM_CLASSES } pb_item_class;
#define PB_ITEM_CLASSES(c) (1u << (c))
/* Scalars and records: a module that moves any item whole. */
#define PB_ITEM_ANY (PB_ITEM_CLASSES(PB_ITEM_SCALAR) | PB_ITEM_CLASSES(PB_ITEM_RECORD))

/* One item kind a sweep can name (`item = pairs`): its name and width, and
 * its class (the zero of a table that names none is a scalar). A sweep's
 * points carry the width, so a family's kinds of one class may share a
 * width (aliases) but kinds of different classes never do. */
typedef struct pb_item_kind {
    const char *name;
    unsigned bytes;
    const char *help;
    pb_item_class cls;
} pb_item_kind;

typedef struct pb_family {
    const char *name;    /* "shuffle": the `family` key of sweep configs */
    const char *summary; /* one line: what a module of the family computes */
    const char *input;   /* one line: how the harness generates its inputs */
    /* The items a sweep of this family may name; items[0] is the default. */
    const pb_item_kind *items;
    size_t nitems;
    unsigned bounds;     /* PB_BOUNDS() of the ceilings its sweeps measure */
    /* Its modules' outputs are permutations, so they may draw sample
     * permutations for the statistical battery. */
    bool permutes;
    /* Bytes an algorithm of the family must move at least for n items of
     * item_bytes: the effective bandwidth's numerator. */
    double (*bound_bytes)(uint64_t n, unsigned item_bytes);
    /* The contract check of a module without a verify of its own (NULL: its
     * modules must bring one). Untimed. */
    int (*check)(const struct pb_module *m, void *state, const struct pb_point *pt, pb_err *err);
    /* Optional: checks a point of module m against what only the family
     * knows, before anything runs (a `dist = file:PATH` must hold the keys
     * the point needs), so a sweep that cannot finish is refused at once
     * with one line. NULL: nothing to check beyond memory. */
    int (*check_point)(const struct pb_module *m, const struct pb_point *pt, pb_err *err);
} pb_family;

#define PB_ITEMS(kinds) (kinds), (sizeof(kinds) / sizeof((kinds)[0]))

/* The kind named `name` among the family's items, or NULL. */
const pb_item_kind *pb_family_item(const pb_family *f, const char *name);
/* "u64, u32": the family's item names, for messages. */
const char *pb_family_items_text(const pb_family *f, char *buf, size_t len);
/* The first of the family's kinds that is item_bytes wide, or NULL. */
const pb_item_kind *pb_family_item_of_width(const pb_family *f, unsigned item_bytes);

#ifdef __cplusplus
}
#endif

#endif
