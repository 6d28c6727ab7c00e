/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The consumer embedded protocol as Kafka's ConsumerProtocol reads it: the
 * bytes a classic consumer puts in its JoinGroup protocol metadata
 * (ConsumerProtocolSubscription) and receives as its SyncGroup assignment
 * (ConsumerProtocolAssignment), each an int16 version followed by the
 * message, decoded by the generated codec (consumer_protocol.schema).
 * Decoded strings and bytes are views into the given bytes; arrays come
 * from the arena.
 */
#ifndef KC_CONSUMER_PROTOCOL_H
#define KC_CONSUMER_PROTOCOL_H

#include <stdbool.h>
#include <stdint.h>

#include "kc_msgs.h"
#include "wire.h"

/* Read the message at the version of its prefix (checkSubscriptionVersion /
 * checkAssignmentVersion: a negative one is refused, one above the newest
 * known is read as the newest). */
#define KC_CONSUMER_PROTOCOL_PREFIXED ((int16_t)-1)

/* The int16 version prefix of p (len bytes; a negative len reads as none):
 * true, or false when there are fewer than 2 bytes (ConsumerProtocol.
 * deserializeVersion's buffer underflow). */
bool kc_consumer_protocol_version(const uint8_t *p, int32_t len, int16_t *version);

/*
 * Decodes a version-prefixed ConsumerProtocolSubscription into out, at
 * as_version: KC_CONSUMER_PROTOCOL_PREFIXED (deserializeConsumerProtocol
 * Subscription(buffer)), or a version read whatever the prefix says (0 in
 * ClassicGroup.computeSubscribedTopics, the layout every version starts
 * with). Bytes after the message are ignored, as Kafka ignores them.
 * Returns 0, or KC_EINVAL when the bytes do not hold the message (Kafka's
 * SchemaException).
 */
int kc_consumer_protocol_read_subscription(const uint8_t *p, int32_t len, int16_t as_version,
                                           kc_arena_t *arena,
                                           kc_consumer_protocol_subscription_t *out);
/* The same for a ConsumerProtocolAssignment, at the version of its prefix
 * (deserializeConsumerProtocolAssignment(buffer)). */
int kc_consumer_protocol_read_assignment(const uint8_t *p, int32_t len, kc_arena_t *arena,
                                         kc_consumer_protocol_assignment_t *out);

#endif
