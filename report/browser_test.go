package report

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// browser finds a Chromium to drive headless. Without one the test is
// skipped, saying so, unless REBALSIM_BROWSER_TEST=require (as CI sets,
// after installing Debian's chromium), when it fails.
func browser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("REBALSIM_BROWSER_TEST") == "require" {
		t.Fatal("no chromium on PATH, and REBALSIM_BROWSER_TEST=require")
	}
	t.Skip("no chromium on PATH: the browser test of report.html needs it (apt-get install chromium)")
	return ""
}

func headless(t *testing.T, chrome string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--user-data-dir=" + t.TempDir()}
	out, err := exec.CommandContext(ctx, chrome, append(base, args...)...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", chrome, args, err)
	}
	return out
}

var selftestResult = regexp.MustCompile(`<pre id="selftest-result">(.*?)</pre>`)

// TestReportPageInABrowser loads report.html for 12 and 200 members in
// headless Chromium with #selftest, which makes the page zoom with the
// wheel, pan by dragging and click the first disturbance, then reads what
// the page saw: it rendered, each gesture moved the view as it should,
// and no error reached the console. It saves a screenshot of each page's
// first screen, with the timeline, and logs where (go test -v).
func TestReportPageInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates a 200-member group and starts a browser")
	}
	chrome := browser(t)
	shots := os.Getenv("REBALSIM_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join(os.TempDir(), "rebalsim-screenshots")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		members, partitions int
		interval, duration  string
	}{
		{12, 36, "20s", "6m"},
		{200, 600, "5s", "20m"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d members", c.members), func(t *testing.T) {
			sc := scaleScenario(t, c.members, c.partitions, c.interval, c.duration)
			r := runScale(t, sc, "cooperative")
			charts, err := Charts(r)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			page := filepath.Join(dir, "report.html")
			f, err := os.Create(page)
			if err != nil {
				t.Fatal(err)
			}
			if err := HTML(f, r, charts...); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			dom := headless(t, chrome, "--dump-dom", "--virtual-time-budget=10000", "file://"+page+"#selftest")
			m := selftestResult.FindSubmatch(dom)
			if m == nil {
				t.Fatalf("the page wrote no self-test result; its DOM ends %q", tail(dom, 300))
			}
			var got struct {
				Errors                           []string
				Rendered, Zoomed, Panned, Linked bool
			}
			if err := json.Unmarshal(m[1], &got); err != nil {
				t.Fatalf("self-test result %q: %v", m[1], err)
			}
			if len(got.Errors) > 0 {
				t.Errorf("console errors: %q", got.Errors)
			}
			if !got.Rendered || !got.Zoomed || !got.Panned || !got.Linked {
				t.Errorf("rendered %v, zoomed %v, panned %v, disturbance list linked %v: want all", got.Rendered, got.Zoomed, got.Panned, got.Linked)
			}
			shot := filepath.Join(shots, fmt.Sprintf("report-%d-members.png", c.members))
			headless(t, chrome, "--window-size=1280,1000", "--screenshot="+shot, "file://"+page+"#shot")
			if st, err := os.Stat(shot); err != nil || st.Size() < 20000 {
				t.Errorf("screenshot %s missing or blank: %v", shot, err)
			}
			t.Logf("screenshot: %s", shot)
		})
	}
}

func tail(b []byte, n int) []byte { return b[max(0, len(b)-n):] }
