// Command realrun runs scenarios on a real Kafka broker with real
// consumers and prints their metrics beside the simulator's.
//
//	cd fidelity && go run ./cmd/realrun ../scenarios/examples/scale-out.yaml --client java --timings short
//
// It builds fidelity/java with Maven (Kafka's artifacts land in Maven's
// local repository and are reused), starts one KRaft broker on 127.0.0.1,
// runs each scenario under each protocol --reps times, and runs the
// simulator on as many seeds. It exits 1 when a metric named by --gate
// leaves the real range beyond its tolerance, 2 on a usage error or a
// scenario it cannot run for real.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/rebalsim/rebalsim/fidelity"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

func main() {
	os.Exit(run())
}

func run() int {
	fs := pflag.NewFlagSet("realrun", pflag.ContinueOnError)
	clients := fs.String("client", "java", "consumer implementations, comma-separated: java, franz-go, librdkafka")
	timings := fs.String("timings", "short", "short (session 6s, heartbeat 500ms) or default (the scenario's, Kafka's defaults)")
	reps := fs.Int("reps", 2, "real repetitions per protocol, over evenly spaced heartbeat phases; the simulator runs as many seeds")
	protos := fs.String("protocols", "", "protocols to run, comma-separated (default: the scenario's, else all three)")
	out := fs.String("out", "", "directory for recordings, results and the table (default: a temporary directory)")
	gate := fs.String("gate", "", "metrics whose ✗ makes realrun exit 1, comma-separated, or ci for the CI gate's list")
	javaDir := fs.String("java", "", "the fidelity/java directory (default: found from the working directory)")
	wide := fs.Bool("wide", false, "one row per scenario and protocol, a column per metric (real · simulator)")
	from := fs.String("from", "", "measure the recordings a previous run left in this directory again, instead of running anything")
	parallel := fs.Bool("parallel", false, "run a scenario's protocols at the same time, each in its own group (faster; the machine is shared by three groups)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}
	if fs.NArg() == 0 || *reps < 1 {
		fmt.Fprintln(os.Stderr, "usage: realrun SCENARIO.yaml... [--client java] [--timings short|default] [--reps N] [--out DIR]")
		return 2
	}
	t, err := fidelity.ParseTimings(*timings)
	if err != nil {
		fmt.Fprintln(os.Stderr, "realrun:", err)
		return 2
	}
	var scs []*sim.Scenario
	for _, path := range fs.Args() {
		file, err := scenarios.LoadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		sc := file.Scenario
		if err := fidelity.CheckSubset(sc); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		scs = append(scs, fidelity.ApplyTimings(sc, t))
	}
	gated := split(*gate)
	if *gate == "ci" {
		gated = fidelity.CIGate
	}
	for _, g := range gated {
		if _, ok := fidelity.Tolerances[g]; !ok {
			fmt.Fprintf(os.Stderr, "realrun: --gate %q is no metric (metrics: %s)\n", g, strings.Join(sim.MetricNames(), ", "))
			return 2
		}
	}
	dir := *out
	if dir == "" {
		if dir, err = os.MkdirTemp("", "realrun-"); err != nil {
			fmt.Fprintln(os.Stderr, "realrun:", err)
			return 2
		}
	}
	if *javaDir == "" {
		*javaDir, err = findJavaDir()
		if err != nil {
			fmt.Fprintln(os.Stderr, "realrun:", err)
			return 2
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sup := &fidelity.Supervisor{}
	defer sup.KillAll()
	var rows []fidelity.Row
	if *from != "" {
		rows, err = remeasure(scs, split(*protos), *from, *reps)
	} else {
		rows, err = compareAll(ctx, sup, scs, split(*clients), split(*protos), *reps, *parallel, dir, *javaDir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "realrun:", err)
		return 2
	}
	write := fidelity.WriteTable
	if *wide {
		write = fidelity.WriteWide
	}
	if err := write(os.Stdout, rows); err != nil {
		fmt.Fprintln(os.Stderr, "realrun:", err)
		return 2
	}
	f, err := os.Create(filepath.Join(dir, "table.md"))
	if err == nil {
		write(f, rows)
		f.Close()
	}
	fmt.Fprintf(os.Stderr, "realrun: recordings and results in %s\n", dir)
	verdict := fidelity.Gate(rows, gated)
	for _, r := range verdict.Known {
		fmt.Fprintf(os.Stderr, "realrun: known: %s %s %s: simulator %s outside %s's %s (%s)\n", r.Scenario, r.Protocol, r.Metric, r.Sim, r.Client, r.Real, fidelity.KnownWhy(r))
	}
	for _, r := range verdict.Failed {
		fmt.Fprintf(os.Stderr, "realrun: %s %s %s: simulator %s outside %s's %s beyond %s\n", r.Scenario, r.Protocol, r.Metric, r.Sim, r.Client, r.Real, fidelity.Tolerances[r.Metric].Why)
	}
	failed := len(verdict.Failed)
	if len(gated) > 0 {
		fmt.Printf("fidelity: %d passed, %d failed, %d known\n", verdict.Checked-failed-len(verdict.Known), failed, len(verdict.Known))
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// oneRelease is the Kafka release every scenario's kafka_version names:
// one broker and one Java build serve a whole invocation.
func oneRelease(scs []*sim.Scenario) (string, error) {
	var release, first string
	for _, sc := range scs {
		r, err := fidelity.Release(sc)
		if err != nil {
			return "", err
		}
		if release == "" {
			release, first = r, sc.Source
		} else if r != release {
			return "", fmt.Errorf("%s runs on Kafka %s but %s on %s: run them separately", first, release, sc.Source, r)
		}
	}
	return release, nil
}

func compareAll(ctx context.Context, sup *fidelity.Supervisor, scs []*sim.Scenario, clients, protos []string, reps int, parallel bool, dir, javaDir string) ([]fidelity.Row, error) {
	release, err := oneRelease(scs)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(os.Stderr, "realrun: building", javaDir, "with Maven against Kafka", release)
	j, err := fidelity.BuildJava(javaDir, release)
	if err != nil {
		return nil, err
	}
	var impls []fidelity.Client
	for _, c := range clients {
		switch c {
		case "java":
			impls = append(impls, fidelity.JavaClient{Java: j})
		case "franz-go", "librdkafka":
			bin, err := fidelity.BuildGoMember(filepath.Dir(javaDir), fidelity.GoMembers[c], dir)
			if err != nil {
				return nil, err
			}
			impls = append(impls, fidelity.GoClient{Impl: c, Binary: bin})
		default:
			return nil, fmt.Errorf("--client %q: known clients are java, franz-go and librdkafka", c)
		}
	}
	var broker *fidelity.Broker
	defer func() { broker.Stop() }()
	var rows []fidelity.Row
	var runs atomic.Int64
	for _, sc := range scs {
		props := fidelity.BrokerProps(sc.Group)
		if broker == nil || !sameGroupProps(broker.Props, props) {
			broker.Stop()
			fmt.Fprintln(os.Stderr, "realrun: starting Kafka", j.Release, "(KRaft, 127.0.0.1)")
			if broker, err = fidelity.StartBroker(ctx, sup, j, filepath.Join(dir, "broker"), props); err != nil {
				return nil, err
			}
		}
		list := protos
		if len(list) == 0 {
			list = sc.Protocols
		}
		if len(list) == 0 {
			list = sim.Protocols()
		}
		// Each protocol's rows, in the order of list; with parallel, the
		// protocols run at once, each in its own group and topics.
		perProto := make([][]fidelity.Row, len(list))
		errs := make([]error, len(list))
		var wg sync.WaitGroup
		var barrier func()
		if parallel {
			barrier = fidelity.NewBarrier(len(list)).Wait
		}
		for i, proto := range list {
			one := func() {
				defer wg.Done()
				perProto[i], errs[i] = compareProtocol(ctx, sup, sc, proto, impls, j, broker, reps, dir, &runs, barrier)
			}
			wg.Add(1)
			if parallel {
				go one()
			} else {
				one()
			}
		}
		wg.Wait()
		for i := range list {
			if errs[i] != nil {
				return nil, errs[i]
			}
			rows = append(rows, perProto[i]...)
		}
	}
	return rows, nil
}

// compareProtocol runs sc under proto reps times with each client, and
// the simulator on as many seeds, and compares them.
func compareProtocol(ctx context.Context, sup *fidelity.Supervisor, sc *sim.Scenario, proto string, impls []fidelity.Client, j *fidelity.Java, broker *fidelity.Broker, reps int, dir string, runs *atomic.Int64, barrier func()) ([]fidelity.Row, error) {
	var rows []fidelity.Row
	for _, c := range impls {
		var real []*sim.Result
		var recs []*fidelity.Recording
		for rep := range reps {
			name := fmt.Sprintf("r%d-%d-%s-%s-%s", time.Now().Unix()%100000, runs.Add(1), sc.Name, proto, c.Name())
			runDir := filepath.Join(dir, name)
			if err := os.MkdirAll(runDir, 0o755); err != nil {
				return nil, err
			}
			fmt.Fprintf(os.Stderr, "realrun: %s under %s with %s, rep %d/%d (%s)\n", sc.Name, proto, c.Name(), rep+1, reps, sc.Duration)
			rec, err := fidelity.RunReal(ctx, sup, sc, fidelity.RunOptions{Protocol: proto, Client: c, Java: j, Broker: broker, Rep: rep, Reps: reps, Name: name, Dir: runDir, Barrier: barrier})
			if err != nil {
				return nil, err
			}
			res, err := fidelity.Measure(sc, rec)
			if err != nil {
				return nil, err
			}
			if err := writeJSON(filepath.Join(runDir, "recording.json"), rec); err != nil {
				return nil, err
			}
			if err := writeJSON(filepath.Join(runDir, "result.json"), res); err != nil {
				return nil, err
			}
			real = append(real, res)
			recs = append(recs, rec)
		}
		simulated, err := fidelity.SimulateLike(sc, proto, recs, reps)
		if err != nil {
			return nil, err
		}
		rows = append(rows, fidelity.Compare(sc.Name, proto, c.Name(), real, simulated)...)
	}
	return rows, nil
}

// remeasure measures every recording under dir again: the measurement is
// a function of what the processes logged, so a change to it needs no
// new run.
func remeasure(scs []*sim.Scenario, protos []string, dir string, reps int) ([]fidelity.Row, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "recording.json"))
	if err != nil {
		return nil, err
	}
	type key struct{ scenario, protocol, client string }
	recs := map[key][]*fidelity.Recording{}
	var clients []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		rec := &fidelity.Recording{}
		if err := json.Unmarshal(b, rec); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		// Recordings made before runs kept the coordinator's joins get
		// them from the broker's log, if the directory has it.
		if err := fidelity.AddJoins(rec, filepath.Join(dir, "broker", "broker.log"), filepath.Base(filepath.Dir(p))); err != nil {
			return nil, err
		}
		k := key{rec.Scenario, rec.Protocol, rec.Client}
		recs[k] = append(recs[k], rec)
		if !slices.Contains(clients, rec.Client) {
			clients = append(clients, rec.Client)
		}
	}
	slices.Sort(clients)
	var rows []fidelity.Row
	for _, sc := range scs {
		list := protos
		if len(list) == 0 {
			list = sim.Protocols()
		}
		for _, proto := range list {
			for _, c := range clients {
				rs := recs[key{sc.Name, proto, c}]
				if len(rs) == 0 {
					continue
				}
				slices.SortFunc(rs, func(a, b *fidelity.Recording) int { return a.Rep - b.Rep })
				var real []*sim.Result
				for _, rec := range rs {
					res, err := fidelity.Measure(sc, rec)
					if err != nil {
						return nil, err
					}
					real = append(real, res)
				}
				// The simulator runs at the recorded repetitions' phases,
				// of --reps (or of as many as were recorded, if more).
				of := max(reps, rs[len(rs)-1].Rep+1)
				simulated, err := fidelity.SimulateLike(sc, proto, rs, of)
				if err != nil {
					return nil, err
				}
				rows = append(rows, fidelity.Compare(sc.Name, proto, c, real, simulated)...)
			}
		}
	}
	return rows, nil
}

func sameGroupProps(running, want map[string]string) bool {
	for k, v := range want {
		if running[k] != v {
			return false
		}
	}
	return true
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// findJavaDir looks for fidelity/java from the working directory up.
func findJavaDir() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		for _, c := range []string{filepath.Join(d, "java"), filepath.Join(d, "fidelity", "java")} {
			if _, err := os.Stat(filepath.Join(c, "pom.xml")); err == nil {
				return c, nil
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errors.New("cannot find fidelity/java/pom.xml above the working directory; pass --java")
		}
		d = parent
	}
}
