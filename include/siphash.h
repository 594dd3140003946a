/* siphash.h — SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed hash
 * that a sender who does not know the key cannot aim at a chosen bucket.
 * One implementation for the daemon (limit.c) and the BPF program
 * (src/kpath/bpf/answer.bpf.c), which include this file alike: only
 * linux/types.h, static inline, no loops in what the program calls. */
#ifndef ARPOWND_SIPHASH_H
#define ARPOWND_SIPHASH_H

#include <linux/types.h>

#define SIP_INLINE	static inline __attribute__((always_inline))

/* A key: the 16 bytes k[0..15] read as two little-endian words. */
struct sip_key {
	__u64	k0, k1;
};

#define SIP_ROTL(x, b)	(((x) << (b)) | ((x) >> (64 - (b))))

#define SIP_ROUND(v0, v1, v2, v3) do {					\
	v0 += v1; v1 = SIP_ROTL(v1, 13); v1 ^= v0; v0 = SIP_ROTL(v0, 32);	\
	v2 += v3; v3 = SIP_ROTL(v3, 16); v3 ^= v2;			\
	v0 += v3; v3 = SIP_ROTL(v3, 21); v3 ^= v0;			\
	v2 += v1; v1 = SIP_ROTL(v1, 17); v1 ^= v2; v2 = SIP_ROTL(v2, 32);	\
} while (0)

/* The hash of the message whose blocks (little-endian words; the last
 * one with the length in its top byte) are m[0..n-1]. */
SIP_INLINE __u64
sip_blocks(const struct sip_key *k, const __u64 *m, __u32 n)
{
	__u64 v0 = k->k0 ^ 0x736f6d6570736575ull, v1 = k->k1 ^ 0x646f72616e646f6dull;
	__u64 v2 = k->k0 ^ 0x6c7967656e657261ull, v3 = k->k1 ^ 0x7465646279746573ull;
	__u32 i;

	for (i = 0; i < n; i++) {
		v3 ^= m[i];
		SIP_ROUND(v0, v1, v2, v3);
		SIP_ROUND(v0, v1, v2, v3);
		v0 ^= m[i];
	}
	v2 ^= 0xff;
	SIP_ROUND(v0, v1, v2, v3);
	SIP_ROUND(v0, v1, v2, v3);
	SIP_ROUND(v0, v1, v2, v3);
	SIP_ROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

/* SipHash-2-4 of the 4 bytes of an IPv4 address in network order (ip is
 * in host order): one block, the same on either side of the BPF line. */
SIP_INLINE __u64
sip_hash_ip(const struct sip_key *k, __u32 ip)
{
	__u64 b = 4ull << 56;

	b |= (__u64)((ip >> 24) & 0xff) | (__u64)((ip >> 16) & 0xff) << 8 |
	    (__u64)((ip >> 8) & 0xff) << 16 | (__u64)(ip & 0xff) << 24;
	return sip_blocks(k, &b, 1);
}

/* SipHash-2-4 of an ARP sender: the 4 bytes of its IPv4 address in
 * network order (ip in host order), then its 6-byte hardware address:
 * two blocks, the same on either side of the BPF line. */
SIP_INLINE __u64
sip_hash_sender(const struct sip_key *k, __u32 ip, const __u8 mac[6])
{
	__u64 b[2];

	b[0] = (__u64)((ip >> 24) & 0xff) | (__u64)((ip >> 16) & 0xff) << 8 |
	    (__u64)((ip >> 8) & 0xff) << 16 | (__u64)(ip & 0xff) << 24 |
	    (__u64)mac[0] << 32 | (__u64)mac[1] << 40 | (__u64)mac[2] << 48 |
	    (__u64)mac[3] << 56;
	b[1] = (__u64)mac[4] | (__u64)mac[5] << 8 | 10ull << 56;
	return sip_blocks(k, b, 2);
}

/* SipHash-2-4 of len bytes at p (up to 64: the reference's test vectors). */
SIP_INLINE __u64
sip_hash(const struct sip_key *k, const unsigned char *p, __u32 len)
{
	__u64 m[9] = { 0 };
	__u32 i;

	if (len > 64)
		len = 64;
	for (i = 0; i < len; i++)
		m[i / 8] |= (__u64)p[i] << (8 * (i % 8));
	m[len / 8] |= (__u64)len << 56;
	return sip_blocks(k, m, len / 8 + 1);
}

/* The key as the reference reads it: k0, k1 little-endian from 16 bytes. */
SIP_INLINE struct sip_key
sip_key_of(const unsigned char b[16])
{
	struct sip_key k = { 0, 0 };
	__u32 i;

	for (i = 0; i < 8; i++) {
		k.k0 |= (__u64)b[i] << (8 * i);
		k.k1 |= (__u64)b[8 + i] << (8 * i);
	}
	return k;
}

#endif
