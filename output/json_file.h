/* Reading a JSON document that may be gzip-compressed. The committed
 * reference runs are stored as results.json.gz (scripts/pack-reference.sh:
 * the tree must fit what a lent GPU machine takes with it), live runs write
 * plain results.json, and every reader takes either. */
#ifndef PB_JSON_FILE_H
#define PB_JSON_FILE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* As json_load_file(path, 0, je), but the file may also be gzip data, told
 * by its first bytes rather than its name. NULL with je->text saying why:
 * line -1 when the file cannot be read or its gzip stream is corrupt or cut
 * short, else the line of the JSON fault in the uncompressed text. */
json_t *pb_json_load_file(const char *path, json_error_t *je);

/* DIR/results.json, else DIR/results.json.gz, into path (len bytes).
 * False when neither is there; path then names the plain one. */
bool pb_results_json_in(const char *dir, char *path, size_t len);

#endif
