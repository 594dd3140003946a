/* jsonw.h — a streaming JSON writer onto a FILE; pure, no tree in memory. */
#ifndef ARPOWND_JSONW_H
#define ARPOWND_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JW_DEPTH	16

struct jw {
	FILE		*f;
	unsigned	 depth;
	bool		 items[JW_DEPTH];	/* an item written at this depth */
	bool		 lines[JW_DEPTH];	/* each item on a line of its own */
	char		 close[JW_DEPTH];	/* '}' or ']' */
};

/* Start writing one document onto f. */
void jw_init(struct jw *w, FILE *f);
/* Open an object or array: a member called key inside an object, an
 * element (key NULL) inside an array or at the top; with lines, each of
 * its items starts a new line (one record per line: the log's layout). */
void jw_obj(struct jw *w, const char *key, bool lines);
void jw_arr(struct jw *w, const char *key, bool lines);
/* Close the innermost object or array; at the top, end the line. */
void jw_end(struct jw *w);
/* Values, named by key inside an object, key NULL inside an array. */
void jw_str(struct jw *w, const char *key, const char *s);
void jw_strn(struct jw *w, const char *key, const char *s, size_t len);
void jw_u64(struct jw *w, const char *key, unsigned long long v);
void jw_int(struct jw *w, const char *key, long long v);
/* A time or duration in seconds, to the millisecond; 0 and below as null
 * when null0 (a time that never was). */
void jw_secs(struct jw *w, const char *key, double v, bool null0);
void jw_bool(struct jw *w, const char *key, bool v);
void jw_null(struct jw *w, const char *key);

/* The length of the valid UTF-8 sequence at p (at most left bytes): 1 to
 * 4, or 0 when p does not start one (overlong, surrogate, truncated). */
size_t jw_utf8_len(const unsigned char *p, size_t left);
/* Write len bytes of s as a JSON string's contents: valid UTF-8 as is,
 * every other byte b >= 0x80 as the code point U+00b (so any interface
 * name is valid JSON), quotes, backslashes and controls escaped. */
void jw_escape(FILE *f, const char *s, size_t len);

#endif
