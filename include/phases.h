/* phases.h — a timeline of the steps of a start or a stop, for the one
 * log line that says where the time went (a restart's gap is the sum). */
#ifndef ARPOWND_PHASES_H
#define ARPOWND_PHASES_H

#include <stddef.h>

#define PHS_MAX		16	/* steps kept; later ones are dropped */

struct phs {
	double		 t0;			/* the first step, seconds */
	size_t		 n;
	const char	*what[PHS_MAX];		/* static strings */
	double		 t[PHS_MAX];
};

/* Start a timeline at now (seconds, any clock). */
void phs_begin(struct phs *p, double now);
/* Step what (a static string) reached at now. */
void phs_mark(struct phs *p, const char *what, double now);
/* "what +N ms, ..." into buf (len bytes, NUL-terminated, cut short if
 * need be); returns buf. */
char *phs_format(const struct phs *p, char *buf, size_t len);
/* Milliseconds from the beginning to the last step. */
double phs_total_ms(const struct phs *p);

#endif
