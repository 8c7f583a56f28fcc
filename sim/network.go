package sim

// send delivers msg after the network's latency, keeping each direction
// of a connection in order, and drops it if either end is cut off.
//
// p is the member process at the other end from the coordinator.
func (w *world) send(p *process, from, to Endpoint, msg Message, thread Thread) {
	now := w.k.Now()
	if now < p.cutOffUntil {
		if w.traceOn() {
			w.traceMessage(traceRecord{Event: "drop", Msg: msg.Kind(), Detail: "network partition"}, from, to)
		}
		return
	}
	latency := p.fixedLatency
	if !p.latencyFixed {
		latency = p.latency.Sample()
	}
	arrive := now + latency
	// One end is the coordinator, the other p: the direction, found once,
	// picks the connection's FIFO and the member end's incarnation.
	toCoordinator := to.Process == coordinatorProcess
	last, incarnation := &p.lastFromCoord, to.Incarnation
	if toCoordinator {
		last, incarnation = &p.lastToCoord, from.Incarnation
	}
	if arrive < *last {
		arrive = *last
	}
	*last = arrive
	if w.traceOn() {
		w.traceMessage(traceRecord{Event: "send", Msg: msg.Kind(), Body: msg}, from, to)
	}
	d := w.deliveries.get()
	d.p, d.msg, d.thread, d.toCoordinator, d.incarnation = p, msg, thread, toCoordinator, incarnation
	w.k.schedule(arrive, d)
}

// delivery is a message in flight: the kernel event that hands it to its
// receiver. Deliveries are pooled, as they are a large share of all events.
// One end of every message is the coordinator and the other the member
// process p, so a delivery records only the direction and the member's
// incarnation, which keeps it within a cache line.
type delivery struct {
	p   *process
	msg Message
	// incarnation is the member end's: the sender's of a request, the
	// addressee's of a response.
	incarnation   int
	thread        Thread
	toCoordinator bool
}

// ends returns the sender and addressee of a message between the
// coordinator and incarnation of p.
func ends(p *process, incarnation int, toCoordinator bool) (from, to Endpoint) {
	member := Endpoint{Process: p.name, Incarnation: incarnation}
	if toCoordinator {
		return member, Coordinator
	}
	return Coordinator, member
}

func (d *delivery) fire() {
	p, msg, thread, incarnation, toCoordinator := d.p, d.msg, d.thread, d.incarnation, d.toCoordinator
	w := p.w
	w.deliveries.put(d)
	if w.k.Now() < p.cutOffUntil {
		if w.traceOn() {
			from, to := ends(p, incarnation, toCoordinator)
			w.traceMessage(traceRecord{Event: "drop", Msg: msg.Kind(), Detail: "network partition"}, from, to)
		}
		return
	}
	if w.traceOn() {
		// Delivery time, so a reader sees each message's latency; the
		// body was traced with the send. A message to a process that
		// has since died is still delivered here and then ignored.
		from, to := ends(p, incarnation, toCoordinator)
		w.traceMessage(traceRecord{Event: "recv", Msg: msg.Kind()}, from, to)
	}
	if toCoordinator {
		out := w.effects()
		if oc, ok := msg.(OffsetCommit); ok {
			// The coordinator answers an OffsetCommit in the step that
			// receives it; the answer applies the request's positions.
			w.commitInHand = &oc
		}
		w.coord.Receive(w.coordEnv(), Endpoint{Process: p.name, Incarnation: incarnation, thread: thread}, msg, out)
		w.applyCoordinator(out, p)
		w.commitInHand = nil
		w.release(out)
		return
	}
	if !p.alive || p.incarnation != incarnation {
		return
	}
	if r, ok := msg.(OffsetCommitResponse); ok {
		// The simulator reads commit responses itself (offsetcommit.go),
		// and hands a rejection to a client that reacts to one.
		if p.commitWait != nil && p.commitWait.waiting {
			w.commitAnswered(p)
		} else if p.awaitingCommit {
			w.commitAwaited(p, incarnation)
		}
		if _, reacts := p.client.(CommitResponder); reacts && len(r.Rejected) > 0 && r.sent != nil && p.alive && p.incarnation == incarnation {
			w.stepClient(p, thread, clientInput{fn: func(c Client, env ClientEnv, out *Effects) {
				if h, ok := c.(CommitResponder); ok {
					h.OffsetCommitRejected(env, *r.sent, r, out)
				}
			}})
		}
		return
	}
	w.stepClient(p, thread, clientInput{kind: inputReceive, msg: msg})
}
