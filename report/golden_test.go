package report

import (
	"bytes"
	"flag"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Golden files, in the manner of gonum/plot's cmpimg: each output is
// compared with testdata/<name>, and `go test ./report -regen` rewrites
// them from the current output, to be reviewed as a diff like code.
var regen = flag.Bool("regen", false, "rewrite the golden files in testdata from the current output")

// readGolden returns the golden file testdata/name to compare got with;
// with -regen it writes got there instead and reports there is nothing to
// compare.
func readGolden(t *testing.T, name string, got []byte) (want []byte, compare bool) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *regen {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return nil, false
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file %s (create it with -regen): %v", path, err)
	}
	return want, true
}

// checkGolden compares text (or SVG) output byte for byte.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	want, compare := readGolden(t, name, got)
	if !compare {
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; rerun with -regen if the change is intended\n%s", name, firstDifference(string(want), string(got)))
	}
}

// firstDifference shows the first line that differs, to make a failure
// readable without a diff tool.
func firstDifference(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return ""
}

// checkGoldenPNG compares decoded pixels rather than bytes, as cmpimg does,
// so that a change in PNG compression alone is not a failure. On a
// mismatch the new image is written beside the golden file as
// <name>.failed.png for a look.
func checkGoldenPNG(t *testing.T, name string, got []byte) {
	t.Helper()
	want, compare := readGolden(t, name, got)
	if !compare {
		return
	}
	gi, err := png.Decode(bytes.NewReader(got))
	if err != nil {
		t.Fatalf("decoding rendered %s: %v", name, err)
	}
	wi, err := png.Decode(bytes.NewReader(want))
	if err != nil {
		t.Fatalf("decoding golden %s: %v", name, err)
	}
	if same, where := samePixels(gi, wi); !same {
		failed := strings.TrimSuffix(filepath.Join("testdata", name), ".png") + ".failed.png"
		os.WriteFile(failed, got, 0o644)
		t.Errorf("%s differs from its golden image (%s); the new rendering is in %s; rerun with -regen if the change is intended", name, where, failed)
	}
}

func samePixels(a, b image.Image) (bool, string) {
	if a.Bounds() != b.Bounds() {
		return false, "size " + a.Bounds().String() + " vs " + b.Bounds().String()
	}
	ra, rb := toRGBA(a), toRGBA(b)
	if bytes.Equal(ra.Pix, rb.Pix) {
		return true, ""
	}
	diff := 0
	for i := range ra.Pix {
		if ra.Pix[i] != rb.Pix[i] {
			diff++
		}
	}
	return false, itoa(diff) + " channel values differ"
}

func toRGBA(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok {
		return r
	}
	r := image.NewRGBA(img.Bounds())
	draw.Draw(r, r.Bounds(), img, img.Bounds().Min, draw.Src)
	return r
}
