package units

import (
	"math"
	"testing"
)

func TestDuration(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{
		{0, "0 s"},
		{1, "1 s"},
		{39, "39 s"},
		{89.6, "89.6 s"},
		{119.4, "119 s"},
		{120, "2 min"},
		{136, "2 min 16 s"},
		{1232, "20 min 32 s"}, // the three spellings of one figure
		{1785, "29 min 45 s"},
		{7199, "119 min 59 s"},
		{7200, "2 h"},
		{7530, "2 h 6 min"}, // 125.5 min rounds half away from zero
		{72000, "20 h"},
		{-89, "−89 s"},
		{-160, "−2 min 40 s"},
		{math.Inf(1), "∞"},
		{math.NaN(), "∞"},
	} {
		if got := Duration(c.s); got != c.want {
			t.Errorf("Duration(%v) = %q, want %q", c.s, got, c.want)
		}
	}
}

func TestSecondsOr(t *testing.T) {
	if got := SecondsOr(nil, "never"); got != "never" {
		t.Errorf("SecondsOr(nil) = %q", got)
	}
	n := 1785
	if got := SecondsOr(&n, "never"); got != "29 min 45 s" {
		t.Errorf("SecondsOr(1785) = %q", got)
	}
}

func TestNumber(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{
		{0, "0"}, {1.25, "1.25"}, {20.14, "20.1"}, {99.96, "100"}, {150, "150"},
		{918000, "918,000"}, {-12000, "-12,000"}, {1e-5, "1e-05"},
	} {
		if got := Number(c.x); got != c.want {
			t.Errorf("Number(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}

func TestCountAndMultiple(t *testing.T) {
	if got := Count(1, "round", "rounds"); got != "1 round" {
		t.Errorf("Count(1) = %q", got)
	}
	if got := Count(0, "pod", "pods"); got != "0 pods" {
		t.Errorf("Count(0) = %q", got)
	}
	if got := Multiple(2.5); got != "2.5x" {
		t.Errorf("Multiple(2.5) = %q", got)
	}
	if got := Percent(0.456); got != "46 %" {
		t.Errorf("Percent(0.456) = %q", got)
	}
}
