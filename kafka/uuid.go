package kafka

import (
	"encoding/base64"
	"encoding/hex"
	"math/rand/v2"
	"strings"
)

// Uuid is 128 random bits shaped as java.util.UUID.randomUUID shapes them
// (a version-4, IETF-variant UUID), from which Kafka makes member ids: the
// classic coordinator appends its canonical form to the client id or
// group.instance.id (ClassicGroup.generateMemberId), and a consumer-protocol
// member's id is Kafka's own Uuid string (Uuid.randomUuid().toString()).
type Uuid [16]byte

// RandomUuid draws a Uuid from r as UUID.randomUUID does: random bits with
// the version and variant bits set. Kafka's Uuid.randomUuid also redraws an
// id whose string starts with "-" (so that it never reads as a command-line
// option), and so does RandomUuid; its reserved ids 0 and 1 cannot have the
// version bits.
func RandomUuid(r *rand.Rand) Uuid {
	for {
		var u Uuid
		for i := 0; i < 16; i += 8 {
			v := r.Uint64()
			for j := range 8 {
				u[i+j] = byte(v >> (8 * j))
			}
		}
		u[6] = u[6]&0x0f | 0x40 // version 4
		u[8] = u[8]&0x3f | 0x80 // IETF variant
		if !strings.HasPrefix(u.String(), "-") {
			return u
		}
	}
}

// String is org.apache.kafka.common.Uuid.toString: the 16 bytes in
// URL-safe base64 without padding, 22 characters.
func (u Uuid) String() string { return base64.RawURLEncoding.EncodeToString(u[:]) }

// Canonical is java.util.UUID.toString: 36 characters, lower-case hex in
// groups of 8-4-4-4-12.
func (u Uuid) Canonical() string {
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
