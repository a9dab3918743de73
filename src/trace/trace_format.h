/*
 * Inside the trace file's reader and writer: the bytes both agree on
 * (docs/trace-format.md is the same thing in prose).
 */
#ifndef CML_TRACE_FORMAT_H
#define CML_TRACE_FORMAT_H

#include <stdint.h>

#define CML_TF_MAGIC "CMLTRACE"
#define CML_TF_MAGIC_LEN 8u
/* Magic, then the version as a little-endian u32. */
#define CML_TF_FILE_HEADER 12u
/* A chunk: a 4-byte tag, a little-endian u64 payload length, the payload. */
#define CML_TF_CHUNK_HEADER 12u
#define CML_TF_TAG_HEAD "HEAD"
#define CML_TF_TAG_FUNC "FUNC"
#define CML_TF_TAG_KERN "KERN"
#define CML_TF_TAG_CNTR "CNTR"
#define CML_TF_TAG_PCNT "PCNT"
#define CML_TF_TAG_END "END "

/* A record's attribute byte: space in bits 0-1, op in bits 2-3, the rest 0. */
static inline uint8_t cml_tf_attr(unsigned space, unsigned op)
{
    return (uint8_t)(space | op << 2);
}

/* Zigzag: the signed difference of two lane addresses as an unsigned
 * varint (small either way). */
static inline uint64_t cml_tf_zigzag(uint64_t delta)
{
    return (delta << 1) ^ (0u - (delta >> 63));
}
static inline uint64_t cml_tf_unzigzag(uint64_t z)
{
    return (z >> 1) ^ (0u - (z & 1u));
}

#endif
