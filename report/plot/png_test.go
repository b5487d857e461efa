package plot

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"testing"
)

// encodePNG is lossless: image/png decodes every pixel as drawn, for
// opaque canvases (the fast path, with bounds that do not start at 0,0
// too) and for a translucent one (handed to image/png).
func TestEncodePNGRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	opaque := func(r image.Rectangle) *image.RGBA {
		img := image.NewRGBA(r)
		for i := range img.Pix {
			img.Pix[i] = byte(rng.IntN(256))
			if i%4 == 3 {
				img.Pix[i] = 0xff
			}
		}
		return img
	}
	translucent := opaque(image.Rect(0, 0, 7, 5))
	translucent.SetRGBA(3, 2, color.RGBA{R: 10, G: 20, B: 30, A: 40})
	for name, img := range map[string]*image.RGBA{
		"opaque":      opaque(image.Rect(0, 0, 33, 17)),
		"offset":      opaque(image.Rect(5, 9, 40, 12)),
		"sub-image":   opaque(image.Rect(0, 0, 50, 50)).SubImage(image.Rect(10, 20, 31, 44)).(*image.RGBA),
		"one pixel":   opaque(image.Rect(0, 0, 1, 1)),
		"translucent": translucent,
	} {
		var buf bytes.Buffer
		if err := encodePNG(&buf, img); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		back, err := png.Decode(&buf)
		if err != nil {
			t.Fatalf("%s: image/png cannot decode it: %v", name, err)
		}
		b := img.Bounds()
		if back.Bounds().Dx() != b.Dx() || back.Bounds().Dy() != b.Dy() {
			t.Fatalf("%s: decoded %v, drew %v", name, back.Bounds(), b)
		}
		for y := range b.Dy() {
			for x := range b.Dx() {
				want := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y))
				got := color.NRGBAModel.Convert(back.At(back.Bounds().Min.X+x, back.Bounds().Min.Y+y))
				if got != want {
					t.Fatalf("%s: pixel (%d,%d) decoded as %v, drawn %v", name, x, y, got, want)
				}
			}
		}
	}
}
