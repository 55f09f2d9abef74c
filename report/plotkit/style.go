package plotkit

import (
	"fmt"
	"hash/fnv"
	"image/color"
	"slices"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Palette is Tableau 10, one colour per candidate algorithm; the log is
// black.
var Palette = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0xe1, 0x57, 0x59, 0xff}, {0x76, 0xb7, 0xb2, 0xff},
	{0x59, 0xa1, 0x4f, 0xff}, {0xed, 0xc9, 0x48, 0xff}, {0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff},
	{0x9c, 0x75, 0x5f, 0xff}, {0xba, 0xb0, 0xac, 0xff},
}

var (
	OverColor  = color.RGBA{0xd6, 0x27, 0x28, 0xff} // let through: red
	UnderColor = color.RGBA{0x1f, 0x77, 0xb4, 0xff} // refused: blue
)

var Shapes = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{},
	draw.CrossGlyph{}, draw.PlusGlyph{}, draw.BoxGlyph{}, draw.RingGlyph{},
}

// Style is how one algorithm is drawn in every plot.
type Style struct {
	Color  color.Color
	Dashes []vg.Length
	Shape  draw.GlyphDrawer
}

func (st Style) Line() draw.LineStyle {
	return draw.LineStyle{Color: st.Color, Width: vg.Points(1.5), Dashes: st.Dashes}
}

func (st Style) Glyph() draw.GlyphStyle {
	return draw.GlyphStyle{Color: st.Color, Radius: vg.Points(3), Shape: st.Shape}
}

// KnownAlgorithms fixes the style of the known algorithms, in this order, so
// that an algorithm has the same colour in every plot of every report
// whatever else was run: the default candidates first, then the others.
var KnownAlgorithms = []string{"counter", "counter-lt", "counter-floor", "fixed", "token", "gcra", "buckets:4", "leaky", "xrate", "buckets:2"}

// StyleOf is how alg is drawn in every plot: a fixed style for the known
// algorithms and, for any other (buckets:16, token:B=3), a style drawn
// from a hash of its name, dashed so as not to be mistaken for a known
// one, and the same in every report.
func StyleOf(alg string) Style {
	if i := slices.Index(KnownAlgorithms, alg); i >= 0 {
		return StyleFor(alg, i)
	}
	h := fnv.New32a()
	h.Write([]byte(alg))
	return StyleFor(alg, len(Palette)+int(h.Sum32()%uint32(2*len(Palette))))
}

// StyleFor gives the i-th candidate (0-based, the log excluded) its style.
func StyleFor(alg string, i int) Style {
	if alg == "log" {
		return Style{Color: color.Black, Shape: draw.BoxGlyph{}}
	}
	st := Style{Color: Palette[i%len(Palette)], Shape: Shapes[i%len(Shapes)]}
	switch (i / len(Palette)) % 3 {
	case 1:
		st.Dashes = []vg.Length{vg.Points(5), vg.Points(2)}
	case 2:
		st.Dashes = []vg.Length{vg.Points(1.5), vg.Points(1.5)}
	}
	return st
}

// Styles gives each of the names drawn in one plot, in order, a style whose
// colour and marker shape together differ from every other name's: each
// keeps its own style (StyleOf) unless an earlier name already has that
// colour and shape, in which case it takes the first pair, colour
// varying fastest, that no earlier name has (of the 80 pairs; beyond
// them a pair repeats). The result depends on
// the names and their order only.
func Styles(names []string) []Style {
	out := make([]Style, len(names))
	taken := map[[2]string]bool{}
	key := func(st Style) [2]string {
		return [2]string{fmt.Sprint(st.Color), fmt.Sprintf("%T", st.Shape)}
	}
	for i, n := range names {
		st := StyleOf(n)
		for j := 0; taken[key(st)] && j < len(Palette)*len(Shapes); j++ {
			st = StyleFor(n, j)
			st.Shape = Shapes[(j/len(Palette))%len(Shapes)]
		}
		taken[key(st)] = true
		out[i] = st
	}
	return out
}

// SamePair tells whether two styles have the same colour and the same
// marker shape.
func SamePair(a, b Style) bool {
	return fmt.Sprint(a.Color) == fmt.Sprint(b.Color) && fmt.Sprintf("%T", a.Shape) == fmt.Sprintf("%T", b.Shape)
}
