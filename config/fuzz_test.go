package config

import (
	"errors"
	"testing"

	"github.com/capreport/capreport/render"
)

// FuzzParse: any input either parses or fails with *Error values naming
// the file; never a panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(full))
	f.Add([]byte("sources:\n  - path: a\n    valueSets: [{name: x}, {name: y}]\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("defaults: {deadTime: 1e400}\n"))
	f.Add([]byte("workloads: [{name: \"{a,\"}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("f.yaml", data)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || ce.File != "f.yaml" {
				t.Fatalf("error without file: %v", err)
			}
			return
		}
		if c == nil {
			t.Fatal("nil config without error")
		}
		_ = c.RenderOptions(render.DefaultOptions())
	})
}

// FuzzAssumption: Set either fails and leaves the field unset, or yields a
// value inside the key's documented range.
func FuzzAssumption(f *testing.F) {
	for _, k := range AllKeys() {
		f.Add(string(k), "90s")
		f.Add(string(k), "3x,10x")
		f.Add(string(k), "0.5")
	}
	f.Add("overload", ",,")
	f.Fuzz(func(t *testing.T, key, raw string) {
		var a Assumptions
		err := a.Set(Key(key), raw, 1)
		if err != nil {
			if a.DeadTime.Set || a.PodRate.Set || a.Overload.Set || a.Signal.Set || a.SaturatedEfficiency.Set {
				t.Fatalf("failed Set changed a field: %+v", a)
			}
			return
		}
		switch {
		case a.DeadTime.Set && a.DeadTime.Value <= 0,
			a.LatencyTarget.Set && a.LatencyTarget.Value <= 0,
			a.MetricWindow.Set && a.MetricWindow.Value <= 0,
			a.PodRate.Set && !(a.PodRate.Value > 0),
			a.Demand.Set && !(a.Demand.Value > 0),
			a.Step.Set && !(a.Step.Value > 1),
			a.SaturatedEfficiency.Set && !(a.SaturatedEfficiency.Value > 0 && a.SaturatedEfficiency.Value <= 1),
			a.Overload.Set && len(a.Overload.Value) == 0:
			t.Fatalf("%s=%q gave an out-of-range value: %+v", key, raw, a)
		}
		for _, k := range a.Overload.Value {
			if !(k > 1) {
				t.Fatalf("overload %v", a.Overload.Value)
			}
		}
	})
}
