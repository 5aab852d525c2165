package report

import (
	"bytes"
	"image/color"
	"io"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is one plot (or a grid of plots), drawn on demand as PNG or SVG.
type Figure struct {
	Name  string // file name without extension: "timeline", "timeline-sticky.sync-batch.franz"
	Title string
	W, H  vg.Length
	draw  func(dc draw.Canvas) error
}

// PNG writes the figure as a PNG at 96 dpi.
func (f *Figure) PNG(w io.Writer) error {
	c := vgimg.NewWith(vgimg.UseWH(f.W, f.H), vgimg.UseDPI(96), vgimg.UseBackgroundColor(color.White))
	if err := f.draw(draw.New(c)); err != nil {
		return err
	}
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// SVG writes the figure as an SVG.
func (f *Figure) SVG(w io.Writer) error {
	c := vgsvg.New(f.W, f.H)
	if err := f.draw(draw.New(c)); err != nil {
		return err
	}
	_, err := c.WriteTo(w)
	return err
}

// SVGBytes renders the figure as SVG in memory.
func (f *Figure) SVGBytes() ([]byte, error) {
	var b bytes.Buffer
	err := f.SVG(&b)
	return b.Bytes(), err
}
