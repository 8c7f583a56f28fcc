package report

import (
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rebalsim/rebalsim/sim"
)

// Colours are chosen for three readers at once: someone comparing
// protocols on a projector, someone with a colour-vision deficiency
// (the hues are Okabe–Ito-like), and someone holding a greyscale printout
// (the lightness steps apart and line dashes differ). Red is kept for
// double ownership, the one thing that must never happen.

func rgb(hex uint32) color.RGBA {
	return color.RGBA{R: uint8(hex >> 16), G: uint8(hex >> 8), B: uint8(hex), A: 0xff}
}

// protocolLook is how a protocol is drawn wherever it appears.
type protocolLook struct {
	color  color.RGBA
	dashes []vg.Length
}

// protocolLooks fixes the three known protocols' looks: dark solid, light
// dashed and middle dash-dotted, so that they stay apart in greyscale.
func knownProtocolLook(name string) (protocolLook, bool) {
	switch name {
	case sim.ProtocolEager:
		return protocolLook{color: rgb(0x542788)}, true // dark purple, solid
	case sim.ProtocolCooperative:
		return protocolLook{color: rgb(0xE69F00), dashes: []vg.Length{vg.Points(9), vg.Points(4)}}, true // orange, dashed
	case sim.ProtocolNextgen:
		return protocolLook{color: rgb(0x1B9E77), dashes: []vg.Length{vg.Points(2), vg.Points(3), vg.Points(9), vg.Points(3)}}, true // teal, dash-dot
	}
	return protocolLook{}, false
}

// otherProtocolLooks serve runs of protocols the palette does not know
// (a custom assignor, a second run of one protocol), by run position.
func otherProtocolLook(i int) protocolLook {
	looks := []protocolLook{
		{color: rgb(0x000000), dashes: []vg.Length{vg.Points(1), vg.Points(3)}},
		{color: rgb(0x56B4E9), dashes: []vg.Length{vg.Points(12), vg.Points(3), vg.Points(2), vg.Points(3)}},
		{color: rgb(0xCC79A7), dashes: []vg.Length{vg.Points(5), vg.Points(5)}},
		{color: rgb(0x8C564B), dashes: []vg.Length{vg.Points(14), vg.Points(6)}},
	}
	return looks[i%len(looks)]
}

// protocolLooks returns one look per run: the fixed look of its protocol,
// or, for an unknown protocol or a repeated one, the next spare look.
func protocolLooks(protocols []string) []protocolLook {
	out := make([]protocolLook, len(protocols))
	used := map[string]bool{}
	spare := 0
	for i, p := range protocols {
		if look, ok := knownProtocolLook(p); ok && !used[p] {
			used[p] = true
			out[i] = look
			continue
		}
		out[i] = otherProtocolLook(spare)
		spare++
	}
	return out
}

func (l protocolLook) line(width vg.Length) draw.LineStyle {
	return draw.LineStyle{Color: l.color, Width: width, Dashes: l.dashes}
}

// memberPaletteSize is how many members get distinct colours; charts with
// more members say that colours repeat.
const memberPaletteSize = 12

// memberColor is the colour of the member with number i (see memberOrder).
// The palette alternates dark and light so that neighbours in the member
// list differ in greyscale too.
func memberColor(i int) color.RGBA {
	if i < 0 {
		return rgb(0x7F7F7F)
	}
	palette := [memberPaletteSize]uint32{
		0x0072B2, // blue
		0xE69F00, // orange
		0x009E73, // green
		0x56B4E9, // sky blue
		0x3B3B98, // indigo
		0xF0E442, // yellow
		0x8C564B, // brown
		0xCC79A7, // pink
		0x1B5E20, // dark green
		0xBCBD22, // olive
		0x7F7F7F, // grey
		0x17BECF, // cyan
	}
	return rgb(palette[i%memberPaletteSize])
}

// lighten mixes c with white; f=0 keeps c, f=1 gives white.
func lighten(c color.RGBA, f float64) color.RGBA {
	mix := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*f + 0.5) }
	return color.RGBA{R: mix(c.R), G: mix(c.G), B: mix(c.B), A: 0xff}
}

// hatch is a fill pattern drawn over a colour, for states that must stay
// distinguishable without colour.
type hatch int

const (
	hatchNone hatch = iota
	hatchDiagonal
	hatchBackDiagonal
	hatchCross
)

// fillLook is a coloured, optionally hatched area.
type fillLook struct {
	fill       color.RGBA
	hatch      hatch
	hatchColor color.RGBA
	// outline draws a thin border, for states (like unowned) drawn blank.
	outline bool
}

const (
	doubleOwnershipHex = 0xD7191C
	inkHex             = 0x222222
)

// ownershipLook is how a partition segment is drawn: its owner's colour
// while processing, the owner's colour lightened and hatched while the
// owner is stalled or paused, red cross-hatched for two owners, blank
// when nobody owns it.
func ownershipLook(state string, owner int) (fillLook, bool) {
	c := memberColor(owner)
	switch state {
	case "processing":
		return fillLook{fill: c}, true
	case "stalled":
		return fillLook{fill: lighten(c, 0.65), hatch: hatchDiagonal, hatchColor: c}, true
	case "double":
		return fillLook{fill: rgb(doubleOwnershipHex), hatch: hatchCross, hatchColor: rgb(inkHex)}, true
	}
	return fillLook{}, false // unowned (or unknown): blank
}

// memberStates are the swim-lane states, in legend order.
func memberStates() []string {
	return []string{"processing", "rebalancing", "paused", "stalled", "fenced", "down", "idle"}
}

// memberStateLook is a lane state's look. Lightness alone separates
// processing, down and idle; hatching separates the states in between.
func memberStateLook(state string) fillLook {
	switch state {
	case "processing":
		return fillLook{fill: rgb(0x4DAF4A)}
	case "rebalancing":
		return fillLook{fill: rgb(0xFDB863), hatch: hatchBackDiagonal, hatchColor: rgb(0xB35806)}
	case "paused":
		return fillLook{fill: rgb(0x984EA3), hatch: hatchDiagonal, hatchColor: rgb(0xFFFFFF)}
	case "stalled":
		return fillLook{fill: rgb(0xA6CEE3), hatch: hatchDiagonal, hatchColor: rgb(0x1F78B4)}
	case "fenced":
		return fillLook{fill: rgb(0xA50026), hatch: hatchCross, hatchColor: rgb(0xFFFFFF)}
	case "down":
		return fillLook{fill: rgb(0x252525)}
	case "idle":
		return fillLook{fill: rgb(0xE0E0E0), outline: true}
	}
	return fillLook{fill: rgb(0xFFFFFF), outline: true}
}
