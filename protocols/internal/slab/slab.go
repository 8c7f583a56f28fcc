// Package slab makes the protocol models' messages in chunks.
//
// A message travels as a sim.Message, an interface, and a struct put in
// an interface is copied to the heap: one allocation per message, half
// of all a run makes. So the models send pointers, and a sender of many
// messages of one kind (a coordinator's responses, a consumer-protocol
// client's heartbeats) makes them with a Slab: a copy of the message in
// a chunk the Slab keeps, so that many messages share an allocation. A
// chunk lives as long as any message in it does; nothing is reused, so a
// message, once made, never changes. A sender of few messages of a kind
// (a classic client's JoinGroup, once a rebalance) takes their address
// instead: a chunk would cost it more bytes than it saves allocations.
package slab

// Slab makes values of one message type for one sender. The zero value
// is ready to use.
type Slab[T any] struct {
	free []T
	// size is the next chunk's length: chunks start small, as many
	// senders (a client incarnation) send few messages of a kind, and
	// grow to maxChunk for those that send many, a chunk small enough
	// that the unused end of a sender's last one costs little.
	size int
}

const (
	minChunk = 4
	maxChunk = 16
)

// New returns a pointer to a copy of v.
func (s *Slab[T]) New(v T) *T {
	if len(s.free) == 0 {
		s.size = min(max(2*s.size, minChunk), maxChunk)
		s.free = make([]T, s.size)
	}
	p := &s.free[0]
	s.free = s.free[1:]
	*p = v
	return p
}
