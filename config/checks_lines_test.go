package config

import (
	"reflect"
	"testing"
)

// TestChecksLines: each checks.include / checks.exclude ID keeps its own
// line, in block lists, flow lists and the one-scalar form.
func TestChecksLines(t *testing.T) {
	cases := []struct {
		name, data string
		want       map[string]int
	}{
		{"none", "checks:\n  allowIgnores: false\n", nil},
		{"block lists", "checks:\n  include:\n    - dead-band\n    - dangling-target\n  exclude:\n\n    - assumtion-default\n",
			map[string]int{"dead-band": 3, "dangling-target": 4, "assumtion-default": 7}},
		{"flow list and scalar", "failOn: warning\nchecks:\n  exclude: [a-b,\n    c-d]\n  include: e-f\n",
			map[string]int{"a-b": 3, "c-d": 4, "e-f": 5}},
		{"listed twice: the first line", "checks:\n  include:\n    - a-b\n    - a-b\n", map[string]int{"a-b": 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse(".capreport.yaml", []byte(c.data))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.Checks.Lines, c.want) {
				t.Errorf("lines %v, want %v", cfg.Checks.Lines, c.want)
			}
		})
	}
}
