package fidelity

import (
	"os/exec"
	"sync"
	"syscall"
)

// child is a process the runner started: in a process group of its own,
// so that a signal reaches everything it forked, and killed by the
// kernel if the runner dies (Pdeathsig), so that nothing outlives a run.
type child struct {
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	gone bool
}

// Supervisor holds every child of a run not yet reaped, so that KillAll
// can end them on every way out.
type Supervisor struct {
	mu  sync.Mutex
	set map[*child]struct{}
}

func (s *Supervisor) start(cmd *exec.Cmd) (*child, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, done: make(chan struct{})}
	s.mu.Lock()
	if s.set == nil {
		s.set = map[*child]struct{}{}
	}
	s.set[c] = struct{}{}
	s.mu.Unlock()
	go func() {
		cmd.Wait()
		c.mu.Lock()
		c.gone = true
		c.mu.Unlock()
		s.mu.Lock()
		delete(s.set, c)
		s.mu.Unlock()
		close(c.done)
	}()
	return c, nil
}

// signal sends sig to the child's process group.
func (c *child) signal(sig syscall.Signal) {
	if !c.exited() {
		syscall.Kill(-c.cmd.Process.Pid, sig)
	}
}

func (c *child) exited() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gone
}

func (c *child) wait() { <-c.done }

// KillAll kills every child still running: the runner calls it on every
// way out, so that the broker and the consumers stop with it.
func (s *Supervisor) KillAll() {
	s.mu.Lock()
	cs := make([]*child, 0, len(s.set))
	for c := range s.set {
		cs = append(cs, c)
	}
	s.mu.Unlock()
	for _, c := range cs {
		c.signal(syscall.SIGCONT) // a stopped process group dies only once it runs
		c.signal(syscall.SIGKILL)
	}
	for _, c := range cs {
		c.wait()
	}
}
