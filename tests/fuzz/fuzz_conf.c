/* fuzz_conf.c — libFuzzer: the configuration loader on arbitrary files;
 * whatever it accepts must print to a file it accepts again, the same. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static char *
print(const struct conf *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		abort();
	conf_print(c, f);
	fclose(f);
	/* the first line names the source file: not part of the comparison */
	return buf;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/fuzz_conf.XXXXXX", *a, *b;
	struct conf *c, *c2;
	FILE *f;
	int fd;

	if ((fd = mkstemp(path)) == -1)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	if ((c = conf_load(path, quiet, NULL)) != NULL) {
		a = print(c);
		if ((f = fopen(path, "w")) == NULL)
			abort();
		fputs(a, f);
		fclose(f);
		if ((c2 = conf_load(path, quiet, NULL)) == NULL)
			abort();	/* we printed something we reject */
		b = print(c2);
		if (strcmp(strchr(a, '\n'), strchr(b, '\n')) != 0)
			abort();	/* the round trip changed the meaning */
		free(a);
		free(b);
		conf_free(c2);
		conf_free(c);
	}
	unlink(path);
	return 0;
}
