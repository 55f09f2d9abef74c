/*
 * drive calls the installed vmod vsthrottle's is_denied on a clock it is
 * given, the rest of varnishd stubbed out: VTIM_mono returns the time of
 * the request being asked about, read to the nanosecond as VTIM_mono
 * reads CLOCK_MONOTONIC (tv_sec + 1e-9 * tv_nsec), and VSHA256 is a
 * 64-bit hash (the digest only names a key's bucket and its partition).
 *
 * usage: drive VMOD.so LIMIT PERIOD UNIT [BLOCK BUNIT]
 *   PERIOD * UNIT and BLOCK * BUNIT are multiplied as doubles, as the VCL
 *   compiler's "%.3f * %g" is (e.g. 9.000 0.001).
 * stdin: lines "KEY T_NS"; stdout: one line per request, 1 denied, 0 not.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double mono_now;

double VTIM_mono(void) { return (mono_now); }

void VAS_Fail(const char *func, const char *file, int line, const char *cond, int kind)
{
	(void)kind;
	fprintf(stderr, "vmod assertion failed: %s %s:%d %s\n", func, file, line, cond);
	exit(3);
}

typedef struct { uint32_t state[8]; uint64_t count; unsigned char buf[64]; } VSHA256_CTX;

void VSHA256_Init(VSHA256_CTX *c) { memset(c, 0, sizeof *c); c->count = 1469598103934665603ULL; }

void VSHA256_Update(VSHA256_CTX *c, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		c->count ^= b[i];
		c->count *= 1099511628211ULL;
	}
}

void VSHA256_Final(unsigned char out[32], VSHA256_CTX *c)
{
	uint64_t h = c->count;
	for (int i = 0; i < 32; i++) {
		h ^= h >> 29;
		h *= 0xbf58476d1ce4e5b9ULL;
		out[i] = (unsigned char)(h >> 56);
	}
}

struct vmod_priv { void *priv; long len; const void *methods; };
typedef unsigned is_denied_f(const void *, const char *, long, double, double);
typedef int event_f(const void *, struct vmod_priv *, int);

int main(int argc, char **argv)
{
	static struct { unsigned magic; char rest[4092]; } ctx = { 0x6bb8f0db }; /* VRT_CTX_MAGIC */
	struct vmod_priv priv = { 0 };
	volatile double p, pu, b = 0, bu = 0;
	char key[256];
	long long t;

	if (argc != 5 && argc != 7) {
		fprintf(stderr, "usage: drive VMOD.so LIMIT PERIOD UNIT [BLOCK BUNIT]\n");
		return (2);
	}
	void *h = dlopen(argv[1], RTLD_NOW);
	if (h == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return (2);
	}
	is_denied_f *is_denied = (is_denied_f *)dlsym(h, "vmod_is_denied");
	event_f *event = (event_f *)dlsym(h, "vmod_event_function");
	if (is_denied == NULL || event == NULL) {
		fprintf(stderr, "no vmod_is_denied or vmod_event_function in %s\n", argv[1]);
		return (2);
	}
	if (event(&ctx, &priv, 0)) /* VCL_EVENT_LOAD */
		return (2);
	long limit = strtol(argv[2], NULL, 10);
	p = strtod(argv[3], NULL);
	pu = strtod(argv[4], NULL);
	double period = p * pu;
	if (argc == 7) {
		b = strtod(argv[5], NULL);
		bu = strtod(argv[6], NULL);
	}
	double block = b * bu;
	while (scanf("%255s %lld", key, &t) == 2) {
		long long sec = t / 1000000000LL, nsec = t % 1000000000LL;
		mono_now = sec + 1e-9 * nsec;
		printf("%u\n", is_denied(&ctx, key, limit, period, block));
		fflush(stdout);
	}
	return (0);
}
