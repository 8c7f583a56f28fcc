package scenarios

import (
	"strings"
	"testing"
)

func TestWarningsNameARollingRestartCutByTheHorizon(t *testing.T) {
	src := "name: cut\nduration: 1m\ntopics: [{name: t, partitions: 4}]\nmembers: [{count: 4, id: \"c{i}\"}]\n" +
		"events:\n  - {at: 10s, rolling_restart: {members: all, interval: 20s, down: 5s}}\n"
	sc, err := Parse("cut.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ws := Warnings(sc.Scenario)
	if len(ws) != 1 || !strings.Contains(ws[0], "reaches 3 of its 4 members before the 1m horizon") {
		t.Fatalf("warnings = %q", ws)
	}
	for _, name := range []string{"rolling-restart", "scale-out"} {
		sc, err := Example(name)
		if err != nil {
			t.Fatal(err)
		}
		if ws := Warnings(sc.Scenario); len(ws) != 0 {
			t.Errorf("example %s warns: %q", name, ws)
		}
	}
}
