// Package member is what the Go member programs (cmd/kgomember,
// cmd/rdkmember) share: the Java Member program's line protocol. A member
// takes the Java client's config keys as key=value arguments, prints
// {"ev":"waiting"}, waits for "go" on standard input, then logs its
// callbacks, generations and processed offsets as JSON lines on standard
// output, processing records at rebalsim.processing.rate.
package member

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Args are the member's config, key=value, in the Java client's keys.
type Args map[string]string

// ParseArgs reads key=value arguments.
func ParseArgs(argv []string) (Args, error) {
	kv := Args{}
	for _, a := range argv {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return nil, fmt.Errorf("argument %q is not key=value", a)
		}
		kv[k] = v
	}
	return kv, nil
}

// Ms is a key holding milliseconds, as a duration (0 if absent).
func (a Args) Ms(k string) time.Duration {
	n, _ := strconv.ParseInt(a[k], 10, 64)
	return time.Duration(n) * time.Millisecond
}

// Int is a key holding an integer (0 if absent).
func (a Args) Int(k string) int {
	n, _ := strconv.Atoi(a[k])
	return n
}

// Log writes the JSON lines; it is safe for concurrent use.
type Log struct {
	mu     sync.Mutex
	w      *bufio.Writer
	prefix string
}

// NewLog writes to w; prefix is what the real topic names add to the
// scenario's (rebalsim.topic.prefix), stripped from every partition name.
func NewLog(w io.Writer, prefix string) *Log {
	return &Log{w: bufio.NewWriter(w), prefix: prefix}
}

// Line writes one event, stamped with the wall clock in microseconds.
func (l *Log) Line(ev string, fields map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := map[string]any{"t": time.Now().UnixMicro(), "ev": ev}
	for k, v := range fields {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	l.w.Write(b)
	l.w.WriteByte('\n')
	l.w.Flush()
}

// Part is a real topic partition in the scenario's name, "topic-N".
func (l *Log) Part(topic string, partition int32) string {
	return fmt.Sprintf("%s-%d", strings.TrimPrefix(topic, l.prefix), partition)
}

// Parts names a set of partitions, sorted.
func (l *Log) Parts(m map[string][]int32) []string {
	var out []string
	for t, ps := range m {
		for _, p := range ps {
			out = append(out, l.Part(t, p))
		}
	}
	sort.Strings(out)
	return out
}

// WaitGo prints {"ev":"waiting"} and reads standard input until "go";
// false if the input ended first (the runner gave up on this member).
func (l *Log) WaitGo(in io.Reader) bool {
	l.Line("waiting", nil)
	s := bufio.NewScanner(in)
	for s.Scan() {
		if s.Text() == "go" {
			return true
		}
	}
	return false
}

// Processor spends 1/rate of a second per record and logs processed
// offsets as ranges of up to 50 consecutive records per partition.
type Processor struct {
	log       *Log
	perRecord time.Duration
	busyUntil time.Time
	open      map[string]*[2]int64
	order     []string
}

// NewProcessor processes at rate records per second (0: no cost).
func NewProcessor(l *Log, rate float64) *Processor {
	p := &Processor{log: l, busyUntil: time.Now(), open: map[string]*[2]int64{}}
	if rate > 0 {
		p.perRecord = time.Duration(float64(time.Second) / rate)
	}
	return p
}

// Process spends one record's time on part's offset.
func (p *Processor) Process(part string, offset int64) {
	if p.perRecord > 0 {
		p.busyUntil = maxTime(p.busyUntil, time.Now()).Add(p.perRecord)
		if wait := time.Until(p.busyUntil); wait > 2*time.Millisecond {
			time.Sleep(wait)
		}
	}
	cur := p.open[part]
	switch {
	case cur == nil:
		p.open[part] = &[2]int64{offset, offset}
		p.order = append(p.order, part)
	case offset == cur[1]+1 && cur[1]-cur[0] < 49:
		cur[1] = offset
	default:
		p.flush(part)
		cur[0], cur[1] = offset, offset
	}
}

// Flush logs every open range; call it before anything that may hand a
// partition over (the end of a batch, a rebalance callback).
func (p *Processor) Flush() {
	for _, part := range p.order {
		p.flush(part)
	}
	clear(p.open)
	p.order = p.order[:0]
}

func (p *Processor) flush(part string) {
	r := p.open[part]
	p.log.Line("processed", map[string]any{"part": part, "from": r[0], "to": r[1]})
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
