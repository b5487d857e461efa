package cmdutil

import (
	"testing"
)

// TestColorEnv reads the environment as no-color.org and force-color.org
// say: only a non-empty NO_COLOR or FORCE_COLOR counts, CLICOLOR_FORCE=0
// does not force.
func TestColorEnv(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want ColorEnv
	}{
		{map[string]string{"NO_COLOR": ""}, ColorEnv{}},
		{map[string]string{"NO_COLOR": "1"}, ColorEnv{NoColor: true}},
		{map[string]string{"FORCE_COLOR": ""}, ColorEnv{}},
		{map[string]string{"FORCE_COLOR": "0"}, ColorEnv{Force: true}},
		{map[string]string{"CLICOLOR_FORCE": "0"}, ColorEnv{}},
		{map[string]string{"CLICOLOR_FORCE": "1"}, ColorEnv{Force: true}},
		{map[string]string{"TERM": "dumb"}, ColorEnv{Dumb: true}},
	}
	for _, c := range cases {
		if got := ReadColorEnv(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: %+v, want %+v", c.env, got, c.want)
		}
	}
}
