package rebalsim_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

var updateReadme = flag.Bool("update", false, "rewrite the generated tables of README.md")

// TestReadmeTables keeps the README's tables of protocols, settings and
// metrics equal to the registries they describe (sim.ProtocolTable,
// sim.ConsumerSettingTable, sim.GroupSettingTable, sim.MetricTable and the
// built-in models' names). Each table stands between a begin and an end
// marker; `go test -run TestReadmeTables -update .` rewrites them.
func TestReadmeTables(t *testing.T) {
	const path = "README.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	tables := []struct{ name, body string }{
		{"protocols", protocolTable()},
		{"consumer settings", consumerSettingsTable()},
		{"group settings", groupSettingsTable()},
		{"metrics", metricsTable()},
	}
	updated := readme
	for _, tb := range tables {
		begin := "<!-- " + tb.name + " table: generated from the registry by `go test -run TestReadmeTables -update .` -->\n"
		end := "<!-- end of the " + tb.name + " table -->"
		i := strings.Index(updated, begin)
		j := strings.Index(updated, end)
		if i < 0 || j < i {
			t.Fatalf("%s has no %s table between %q and %q", path, tb.name, begin, end)
		}
		current := updated[i+len(begin) : j]
		if current != tb.body && !*updateReadme {
			t.Errorf("%s: the %s table differs from the registry; run go test -run TestReadmeTables -update .\nREADME:\n%s\nregistry:\n%s", path, tb.name, current, tb.body)
		}
		updated = updated[:i+len(begin)] + tb.body + updated[j:]
	}
	if *updateReadme && updated != readme {
		if err := os.WriteFile(path, []byte(updated), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func protocolTable() string {
	var b strings.Builder
	b.WriteString("| protocol | group.protocol | partition.assignment.strategy | what it is |\n| --- | --- | --- | --- |\n")
	for _, p := range sim.ProtocolTable() {
		assignors := "(the consumer protocol has none: the coordinator assigns)"
		if p.Assignors != nil {
			assignors = "`" + strings.Join(p.Assignors, ", ") + "`"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s |\n", p.Name, p.GroupProtocol, assignors, p.Meaning)
	}
	names := protocols.Default().Names()
	fmt.Fprintf(&b, "\nClient assignors built in: %s. Server assignors built in: %s (the first is the group's default). Assignors plugged in through `protocols.Models` join them (see [Go API and custom assignors](#go-api-and-custom-assignors)).\n",
		code(names.ClientAssignors), code(names.ServerAssignors))
	return b.String()
}

func consumerSettingsTable() string {
	var rows [][]string
	for _, s := range sim.ConsumerSettingTable() {
		def, ok := s.Default()
		rows = append(rows, settingRow(s.Info(), def, ok))
	}
	return settingTable(rows)
}

func groupSettingsTable() string {
	var rows [][]string
	for _, s := range sim.GroupSettingTable() {
		rows = append(rows, settingRow(s.Info(), s.Default(), true))
	}
	return settingTable(rows)
}

func settingTable(rows [][]string) string {
	var b strings.Builder
	b.WriteString("| key | Kafka config | default | unit | rule | meaning |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return b.String()
}

// settingRow writes one setting as the cells of the settings tables.
func settingRow(s sim.Setting, def any, hasDefault bool) []string {
	kafka := "—"
	if s.Kafka != "" {
		kafka = "`" + strings.ReplaceAll(s.Kafka, ", ", "`, `") + "`"
	}
	unit := s.Unit
	if s.Kind == sim.KindDuration {
		unit = "duration"
	}
	text := "—"
	if hasDefault {
		switch d := def.(type) {
		case time.Duration:
			text = "`" + scenarios.FormatDuration(d) + "`"
		case []string:
			text = "`[" + strings.Join(d, ", ") + "]`"
		default:
			text = "`" + sim.Format(d) + "`"
		}
		zero := def == "" || def == time.Duration(0) || def == 0 || def == sim.Distribution{}
		switch {
		case zero && s.Zero != "" && s.Kind == sim.KindDuration:
			text += " (" + s.Zero + ")"
		case zero && s.Zero != "":
			text = s.Zero
		}
	}
	rule := s.RuleText()
	if rule == "" && s.Kind == sim.KindBool {
		rule = "true or false"
	}
	return []string{"`" + s.Key + "`", kafka, text, unit, rule, s.Meaning}
}

func metricsTable() string {
	var b strings.Builder
	b.WriteString("| metric | unit | better | meaning |\n| --- | --- | --- | --- |\n")
	for _, m := range sim.MetricTable() {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", m.Name, m.Unit, m.Better, m.Meaning)
	}
	return b.String()
}

func code(names []string) string {
	return "`" + strings.Join(names, "`, `") + "`"
}
