/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_PBUF_H
#define PMREC_PBUF_H

/*
 * The protobuf wire format, the part pprof's profile.proto needs: varint
 * fields (wire type 0), length-delimited fields (type 2: strings, nested
 * messages, packed repeated varints).  A nested message is built in a
 * buffer of its own and appended with its length, so every length is
 * minimal and the bytes are canonical.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

enum {
	PM_PB_VARINT = 0,
	PM_PB_LEN = 2,
};

/* The bytes of v as a varint (1 to 10). */
int pm_pb__varint(struct pm_buf *b, uint64_t v);
/* A varint field; proto3 leaves a zero out, as a reader takes it for the default. */
int pm_pb__uint(struct pm_buf *b, uint32_t field, uint64_t v);
/* An int64 field: a negative value is its two's complement (10 bytes), as protobuf's int64. */
int pm_pb__int(struct pm_buf *b, uint32_t field, int64_t v);
/* A bool field, left out when false. */
int pm_pb__bool(struct pm_buf *b, uint32_t field, bool v);
/* A length-delimited field (a string, or a nested message's bytes); written even when empty. */
int pm_pb__bytes(struct pm_buf *b, uint32_t field, const void *p, size_t n);
/* A packed repeated varint field; nothing when n is 0. */
int pm_pb__packed(struct pm_buf *b, uint32_t field, const uint64_t *v, size_t n);

#endif
