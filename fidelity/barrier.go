package fidelity

import (
	"sync"
	"time"
)

// Barrier lets n parallel runs start their clocks together: Wait returns
// when all n have called it (or after a timeout, so that a run that
// failed cannot hold the others forever). It can be used again for the
// next round.
type Barrier struct {
	mu      sync.Mutex
	n       int
	waiting int
	release chan struct{}
}

// NewBarrier returns a barrier for n parties.
func NewBarrier(n int) *Barrier { return &Barrier{n: n, release: make(chan struct{})} }

// Wait blocks until all parties of this round have called it.
func (b *Barrier) Wait() {
	b.mu.Lock()
	ch := b.release
	b.waiting++
	if b.waiting == b.n {
		b.waiting = 0
		b.release = make(chan struct{})
		close(ch)
	}
	b.mu.Unlock()
	select {
	case <-ch:
	case <-time.After(3 * time.Minute):
	}
}
