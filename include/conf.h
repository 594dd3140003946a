/* conf.h — /etc/arpownd.conf: load, validate, match interfaces, print. */
#ifndef ARPOWND_CONF_H
#define ARPOWND_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conftypes.h"

/* The built-in defaults (those of conf/arpownd.conf); NULL on ENOMEM. */
struct conf *conf_defaults(void);
/* Load and validate path; reports every error through err and returns NULL if any. */
struct conf *conf_load(const char *path, conf_err_fn *err, void *arg);
/* Free a configuration. */
void conf_free(struct conf *c);
/* The settings for interface name: for each, the first section selecting
 * it that sets it, else [global]'s; 0, or -1 when the interface globs
 * leave it unmanaged (out is then unset). */
int conf_iface(const struct conf *c, const char *name, struct conf_ifset *out);
/* Mode for interface name, or -1 when the interface globs leave it unmanaged. */
int conf_iface_mode(const struct conf *c, const char *name);
/* Print the effective configuration, defaults filled in, as a valid file. */
void conf_print(const struct conf *c, FILE *f);

#endif
