/* test_limit.c — token buckets: rates hold, collisions share. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "limit.h"

/* Offer n tokens evenly over secs seconds from t0; how many were taken. */
static int
offer(struct lim_bucket *b, long rate, double t0, double secs, int n)
{
	int i, got = 0;

	for (i = 0; i < n; i++)
		got += lim_take(b, rate, t0 + secs * i / n);
	return got;
}

static void
test_rate(void **state)
{
	static const struct { long rate; double secs; int offered, lo, hi; } v[] = {
		{ 100, 1.0, 1000, 100, 111 },		/* burst 10 + 100/s */
		{ 1000, 2.0, 100000, 2000, 2101 },	/* burst 100 */
		{ 5, 4.0, 400, 20, 31 },		/* burst at least 10 */
		{ 1000, 1.0, 500, 500, 500 },		/* under the rate: all */
	};
	struct lim_bucket b;
	size_t i;
	int got;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		memset(&b, 0, sizeof(b));
		got = offer(&b, v[i].rate, 1000.0, v[i].secs, v[i].offered);
		if (got < v[i].lo || got > v[i].hi)
			fail_msg("rate %ld over %.1f s, %d offered: %d taken, want %d..%d",
			    v[i].rate, v[i].secs, v[i].offered, got, v[i].lo, v[i].hi);
	}
}

static void
test_clock_back(void **state)
{
	struct lim_bucket b;
	int i, got = 0;

	(void)state;
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 20; i++)
		got += lim_take(&b, 10, 5000.0);
	assert_int_equal(got, 10);
	/* a clock stepped back refills nothing */
	assert_false(lim_take(&b, 10, 4000.0));
	assert_false(lim_take(&b, 10, 4000.05));
	assert_true(lim_take(&b, 10, 4000.2));
}

/* Requests are charged when they arrived (issue 20): a time a little
 * before the last one charged refills nothing and leaves the bucket
 * where it was, so the same interval is never credited twice. */
static void
test_reorder(void **state)
{
	struct lim_bucket b;
	int i, got = 0;

	(void)state;
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 20; i++)
		got += lim_take(&b, 100, 5000.0);
	assert_int_equal(got, 10);
	/* 50 ms earlier (another CPU's frame): nothing, and no re-base */
	assert_false(lim_take(&b, 100, 4999.95));
	/* 10 ms after the last: one token, not the 6 a re-based bucket had */
	assert_true(lim_take(&b, 100, 5000.01));
	assert_false(lim_take(&b, 100, 5000.01));
	/* a client at the rate, its requests seen out of order by 2 ms,
	 * keeps its bucket full: every one taken */
	memset(&b, 0, sizeof(b));
	got = 0;
	for (i = 0; i < 1000; i++)
		got += lim_take(&b, 1000, 6000.0 + i * 1e-3 + (i % 2 ? -2e-3 : 0));
	assert_int_equal(got, 1000);
}

/* Issue 7.8: two senders sharing a bucket, alternating, get the rate
 * between them, not a fresh bucket each time.  (The pair is found with
 * the key, which a sender does not have.) */
static void
test_collision_shares(void **state)
{
	static struct lim l;
	static const uint8_t m[6] = { 0x02, 0, 0, 0, 0, 1 };
	uint32_t a = htonl(0x0a000001u), b = 0, x;
	int i, got = 0;

	(void)state;
	assert_int_equal(lim_init(&l), 0);
	for (x = 0x0a000002u; x < 0x0a100000u; x++)
		if (lim_sender_slot(&l, htonl(x), m) == lim_sender_slot(&l, a, m)) {
			b = htonl(x);
			break;
		}
	assert_int_not_equal(b, 0);
	for (i = 0; i < 2000; i++)
		got += lim_sender(&l, i % 2 ? a : b, m, 10, 100.0 + i * 0.0005);
	/* 1 s at 10/s with a burst of 10 */
	if (got > 21)
		fail_msg("two colliding senders alternating: %d answered, at most 21 allowed", got);
	/* another slot is untouched */
	for (x = 0x0b000000u; lim_sender_slot(&l, htonl(x), m) == lim_sender_slot(&l, a, m); x++)
		;
	assert_true(lim_sender(&l, htonl(x), m, 10, 101.0));
}

/* The reference's SipHash-2-4 test vectors (vectors.h, vectors_sip64):
 * key 00 01 .. 0f, message 00 01 .. (i-1) for i = 0..63. */
static const uint64_t sip_vectors[64] = {
	0x726fdb47dd0e0e31ull, 0x74f839c593dc67fdull, 0x0d6c8009d9a94f5aull, 0x85676696d7fb7e2dull,
	0xcf2794e0277187b7ull, 0x18765564cd99a68dull, 0xcbc9466e58fee3ceull, 0xab0200f58b01d137ull,
	0x93f5f5799a932462ull, 0x9e0082df0ba9e4b0ull, 0x7a5dbbc594ddb9f3ull, 0xf4b32f46226bada7ull,
	0x751e8fbc860ee5fbull, 0x14ea5627c0843d90ull, 0xf723ca908e7af2eeull, 0xa129ca6149be45e5ull,
	0x3f2acc7f57c29bdbull, 0x699ae9f52cbe4794ull, 0x4bc1b3f0968dd39cull, 0xbb6dc91da77961bdull,
	0xbed65cf21aa2ee98ull, 0xd0f2cbb02e3b67c7ull, 0x93536795e3a33e88ull, 0xa80c038ccd5ccec8ull,
	0xb8ad50c6f649af94ull, 0xbce192de8a85b8eaull, 0x17d835b85bbb15f3ull, 0x2f2e6163076bcfadull,
	0xde4daaaca71dc9a5ull, 0xa6a2506687956571ull, 0xad87a3535c49ef28ull, 0x32d892fad841c342ull,
	0x7127512f72f27cceull, 0xa7f32346f95978e3ull, 0x12e0b01abb051238ull, 0x15e034d40fa197aeull,
	0x314dffbe0815a3b4ull, 0x027990f029623981ull, 0xcadcd4e59ef40c4dull, 0x9abfd8766a33735cull,
	0x0e3ea96b5304a7d0ull, 0xad0c42d6fc585992ull, 0x187306c89bc215a9ull, 0xd4a60abcf3792b95ull,
	0xf935451de4f21df2ull, 0xa9538f0419755787ull, 0xdb9acddff56ca510ull, 0xd06c98cd5c0975ebull,
	0xe612a3cb9ecba951ull, 0xc766e62cfcadaf96ull, 0xee64435a9752fe72ull, 0xa192d576b245165aull,
	0x0a8787bf8ecb74b2ull, 0x81b3e73d20b49b6full, 0x7fa8220ba3b2eceaull, 0x245731c13ca42499ull,
	0xb78dbfaf3a8d83bdull, 0xea1ad565322a1a0bull, 0x60e61c23a3795013ull, 0x6606d7e446282b93ull,
	0x6ca4ecb15c5f91e1ull, 0x9f626da15c9625f3ull, 0xe51b38608ef25f57ull, 0x958a324ceb064572ull,
};

/* siphash.h is SipHash-2-4: every vector; and sip_hash_ip, which the
 * daemon and the BPF program both call, is the hash of the address's 4
 * bytes in network order (vector 4: 00 01 02 03). */
static void
test_siphash_vectors(void **state)
{
	unsigned char kb[16], m[64], b[4];
	struct sip_key k;
	uint32_t ip;
	int i;

	(void)state;
	for (i = 0; i < 16; i++)
		kb[i] = (unsigned char)i;
	for (i = 0; i < 64; i++)
		m[i] = (unsigned char)i;
	k = sip_key_of(kb);
	assert_true(k.k0 == 0x0706050403020100ull && k.k1 == 0x0f0e0d0c0b0a0908ull);
	for (i = 0; i < 64; i++)
		if (sip_hash(&k, m, (uint32_t)i) != sip_vectors[i])
			fail_msg("SipHash-2-4 of %d bytes: %016llx, the reference has %016llx", i,
			    (unsigned long long)sip_hash(&k, m, (uint32_t)i),
			    (unsigned long long)sip_vectors[i]);
	assert_true(sip_hash_ip(&k, 0x00010203u) == sip_vectors[4]);
	/* sip_hash_sender: the address's 4 bytes, then the MAC's 6 (vector 10) */
	assert_true(sip_hash_sender(&k, 0x00010203u, m + 4) == sip_vectors[10]);
	for (ip = 0x0a000064u, i = 0; i < 1000; i++, ip = ip * 2654435761u + 12345u) {
		b[0] = (unsigned char)(ip >> 24);
		b[1] = (unsigned char)(ip >> 16);
		b[2] = (unsigned char)(ip >> 8);
		b[3] = (unsigned char)ip;
		assert_true(sip_hash_ip(&k, ip) == sip_hash(&k, b, 4));
	}
	for (ip = 0x0a000064u, i = 0; i < 1000; i++, ip = ip * 2654435761u + 12345u) {
		unsigned char sb[10];

		sb[0] = (unsigned char)(ip >> 24);
		sb[1] = (unsigned char)(ip >> 16);
		sb[2] = (unsigned char)(ip >> 8);
		sb[3] = (unsigned char)ip;
		sb[4] = (unsigned char)i;
		sb[5] = (unsigned char)(ip >> 3);
		sb[6] = 0xff;
		sb[7] = (unsigned char)(i >> 8);
		sb[8] = 0x80;
		sb[9] = (unsigned char)(ip >> 11);
		assert_true(sip_hash_sender(&k, ip, sb + 4) == sip_hash(&k, sb, 10));
	}
}

/* Issue 19.3: the slot was (ip * 2654435761) >> 20, which anyone can
 * compute: a sender chosen to share 10.0.0.100's slot starved it.  Keyed,
 * that sender shares it for about one key in 4096, and each start draws
 * a new key. */
static void
test_keyed(void **state)
{
	static struct lim l, l2;
	static const uint8_t m[6] = { 0x02, 0, 0, 0, 0, 1 };
	uint32_t victim = 0x0a000064u, x, evil = 0;
	int i, shared = 0;

	(void)state;
	for (x = 0x0a000000u; x < 0x0b000000u; x++)
		if (x != victim && (x * 2654435761u) >> 20 == (victim * 2654435761u) >> 20) {
			evil = x;
			break;
		}
	assert_int_not_equal(evil, 0);
	for (i = 0; i < 2000; i++) {
		assert_int_equal(lim_init(&l), 0);
		shared += lim_sender_slot(&l, htonl(evil), m) == lim_sender_slot(&l, htonl(victim), m);
	}
	if (shared > 8)
		fail_msg("%d of 2000 keys put the old formula's collider in the victim's slot", shared);
	assert_int_equal(lim_init(&l2), 0);
	assert_true(l.key.k0 != l2.key.k0 || l.key.k1 != l2.key.k1);
}

/* A sender is its address and its MAC: another host naming a client's
 * address (or probing, from 0.0.0.0 as every prober) has a slot of its
 * own but for one key in 4096, and its flood leaves the client's bucket
 * full.  By the address alone, 2,000 requests a second naming
 * 10.0.0.100 left that client 1 answer of 8. */
static void
test_sender_mac(void **state)
{
	static struct lim l;
	static const uint8_t client[6] = { 0x02, 0, 0, 0, 0, 0x64 },
	    evil[6] = { 0x02, 0x66, 0, 0, 0, 1 };
	uint32_t ips[2] = { htonl(0x0a000064u), 0 }, ip;
	int i, k, shared = 0;

	(void)state;
	for (k = 0; k < 2; k++) {
		ip = ips[k];
		shared = 0;
		for (i = 0; i < 2000; i++) {
			assert_int_equal(lim_init(&l), 0);
			shared += lim_sender_slot(&l, ip, evil) == lim_sender_slot(&l, ip, client);
		}
		if (shared > 8)
			fail_msg("%d of 2000 keys put another MAC in the slot of the same address", shared);
	}
	while (lim_sender_slot(&l, ips[0], evil) == lim_sender_slot(&l, ips[0], client))
		assert_int_equal(lim_init(&l), 0);
	for (i = 0; i < 2000; i++)
		(void)lim_sender(&l, ips[0], evil, 10, 100.0 + i * 0.0005);
	for (i = 0; i < 10; i++)
		assert_true(lim_sender(&l, ips[0], client, 10, 101.0));
}

/* Announcements never take the last half of the burst: replies keep it. */
static void
test_spare(void **state)
{
	struct lim_bucket b;
	int i, ann = 0, rep = 0;

	(void)state;
	memset(&b, 0, sizeof(b));
	/* rate 1000: burst 100; announcements alone stop at 50 left */
	for (i = 0; i < 1000; i++)
		ann += lim_take_spare(&b, 1000, 2, 10.0);
	assert_int_equal(ann, 25);
	for (i = 0; i < 1000; i++)
		rep += lim_take(&b, 1000, 10.0);
	assert_int_equal(rep, 50);
}

/* announce_rate: whatever the pattern of tries (pairs of frames, at
 * random moments, often), no one-second window holds more than the rate,
 * and the steady pace is close to it. */
static void
test_pace_window(void **state)
{
	static double when[20000];
	struct lim_bucket b = { 0, 0 };
	double t = 1.0;
	size_t n = 0, i, j = 0;
	long rate = 1000;
	unsigned seed = 7;

	(void)state;
	while (t < 11.0 && n + 2 <= sizeof(when) / sizeof(when[0])) {
		seed = seed * 1103515245u + 12345u;
		t += (double)(seed >> 16 & 0xfff) / 4096.0 * 0.001;	/* 0..1 ms apart */
		if (lim_pace(&b, rate, 2, t)) {
			when[n++] = t;
			when[n++] = t;
		}
	}
	for (i = 0; i < n; i++) {
		while (when[i] - when[j] >= 1.0)
			j++;
		assert_true(i - j + 1 <= (size_t)rate);
	}
	/* 10 s at 95 % of the rate */
	assert_true(n >= 9450 && n <= 9600);
	/* all or none: 2 frames never pass a bucket of 1 left */
	b = (struct lim_bucket){ 0, 0 };
	assert_true(lim_pace(&b, 100, 2, 1.0));	/* burst 5 */
	assert_true(lim_pace(&b, 100, 2, 1.0));
	assert_false(lim_pace(&b, 100, 2, 1.0));
	assert_true(lim_pace(&b, 100, 1, 1.0));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_clock_back),
		cmocka_unit_test(test_reorder),
		cmocka_unit_test(test_collision_shares),
		cmocka_unit_test(test_siphash_vectors),
		cmocka_unit_test(test_keyed),
		cmocka_unit_test(test_sender_mac),
		cmocka_unit_test(test_spare),
		cmocka_unit_test(test_pace_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
