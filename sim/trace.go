package sim

import "encoding/json"

// TraceRecord is one line of the JSONL trace that RunOptions.Trace
// receives (the file `rebalsim run --trace` writes), for readers of it.
type TraceRecord = traceRecord

type traceRecord struct {
	T      float64   `json:"t"`
	Event  string    `json:"ev"`
	From   *Endpoint `json:"from,omitempty"`
	To     *Endpoint `json:"to,omitempty"`
	Msg    string    `json:"msg,omitempty"`
	Body   any       `json:"body,omitempty"`
	Member string    `json:"member,omitempty"`
	Detail string    `json:"detail,omitempty"`
}

func (w *world) traceOn() bool { return w.trace != nil && w.traceErr == nil }

func (w *world) emit(r traceRecord) {
	r.T = sec(w.k.Now())
	b, err := json.Marshal(r)
	if err == nil {
		b = append(b, '\n')
		_, err = w.trace.Write(b)
	}
	if err != nil {
		w.traceErr = err
	}
}

// traceMessage emits r for a message from one endpoint to another. The
// endpoints are copied here, so that only a traced message moves them to
// the heap (inlined, they would move in every caller).
//
//go:noinline
func (w *world) traceMessage(r traceRecord, from, to Endpoint) {
	r.From, r.To = &from, &to
	w.emit(r)
}
