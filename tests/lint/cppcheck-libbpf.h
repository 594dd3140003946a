/* cppcheck-libbpf.h — the libbpf macros the kernel path's loader uses,
 * for cppcheck (.ci/run --include=): it reads no system header, and
 * without these it stops at the first LIBBPF_OPTS with "unknown macro"
 * instead of checking the file. */
#define LIBBPF_OPTS(TYPE, NAME, ...)	struct TYPE NAME = { .sz = sizeof(struct TYPE), __VA_ARGS__ }
#define DECLARE_LIBBPF_OPTS		LIBBPF_OPTS
