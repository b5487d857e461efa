package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A value outside its documented range is refused with an error naming the
// value and the range, and the field is left unset (the next layer is
// used); the bounds themselves are accepted.
func TestAssumptionRanges(t *testing.T) {
	cases := []struct {
		key      Key
		raw      string
		ok       bool
		wantText string
	}{
		{KeyMetricWindow, "1000000h", false, `"1000000h" is outside the range [1s, 15m]`},
		{KeyMetricWindow, "15m", true, ""},
		{KeyDeadTime, "1000000h", false, `"1000000h" is outside the range [1s, 1h]`},
		{KeyDeadTime, "1h", true, ""},
		{KeyDeadTime, "500ms", false, "[1s, 1h]"},
		{KeyDemand, "1e308", false, `"1e308" is outside the range [0.001, 1000000000]`},
		{KeyDemand, "1e9", true, ""},
		{KeyPodRate, "1e-300", false, `"1e-300" is outside the range [0.001, 1000000]`},
		{KeyPodRate, "0.001", true, ""},
		{KeyOverload, "1e9x", false, "overload 1e+09x outside the range (1, 1000]"},
		{KeyOverload, "3x,10x,1000x", true, ""},
		{KeyOverload, strings.Repeat("2x,", MaxOverloads) + "2x", false, "at most 8"},
		{KeyStep, "1001x", false, "(1, 1000]"},
		{KeyLatencyTarget, "48h", false, "[1s, 24h]"},
		{KeySaturatedEfficiency, "0.5", true, ""},
	}
	for _, c := range cases {
		var a Assumptions
		err := a.Set(c.key, c.raw, 7)
		if c.ok != (err == nil) {
			t.Errorf("%s=%q: err %v, want ok=%v", c.key, c.raw, err, c.ok)
			continue
		}
		if err != nil && !strings.Contains(err.Error(), c.wantText) {
			t.Errorf("%s=%q: %q lacks %q", c.key, c.raw, err, c.wantText)
		}
		if err != nil && !reflect.DeepEqual(a, Assumptions{}) {
			t.Errorf("%s=%q: refused value was stored: %+v", c.key, c.raw, a)
		}
	}
}

// In .capreport.yaml an out-of-range value is an error at its file:line,
// for a workload entry, the defaults and the controller settings alike.
func TestConfigRanges(t *testing.T) {
	data := "defaults:\n  metricWindow: 1000000h\nworkloads:\n  - {name: a, deadTime: 2h}\ncluster:\n  syncPeriod: 1h\n  downscaleStabilization: 0s\n  tolerance: 0.995\n"
	_, err := Parse(".capreport.yaml", []byte(data))
	if err == nil {
		t.Fatal("out-of-range values accepted")
	}
	for _, want := range []string{
		`.capreport.yaml:2: defaults.metricWindow: "1000000h" is outside the range [1s, 15m]`,
		`.capreport.yaml:4: workloads[0].deadTime: "2h" is outside the range [1s, 1h]`,
		`.capreport.yaml:6: cluster.syncPeriod: "1h" is outside the range [1s, 5m]`,
		`.capreport.yaml:8: cluster.tolerance: "0.995" is outside the range [0, 0.99]`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "downscaleStabilization") {
		t.Errorf("0s stabilization refused: %v", err)
	}
}

func TestParsePartitions(t *testing.T) {
	if n, err := ParsePartitions(" 24 "); err != nil || n != 24 {
		t.Errorf("24: %d, %v", n, err)
	}
	for _, bad := range []string{"0", "-3", "1e6", "100001", "9999999999"} {
		if _, err := ParsePartitions(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// README.md quotes every range of ranges, in the annotation table (its
// range column) and the controller settings table, as String writes it.
func TestREADMEQuotesRanges(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		name = strings.TrimPrefix(name, "capreport.io/")
		rows[name] = line
	}
	for name, r := range ranges {
		line, ok := rows[name]
		if !ok {
			t.Errorf("README.md has no table row for %s (range %s)", name, r)
			continue
		}
		if !strings.Contains(line, "| "+r.String()) {
			t.Errorf("README.md row for %s does not quote its range %s:\n%s", name, r, line)
		}
	}
}

// calibrate holds every value it measures to its documented range.
func TestMeasuredKeysHaveRanges(t *testing.T) {
	for _, k := range MeasuredKeys() {
		if _, ok := RangeOf(string(k)); !ok {
			t.Errorf("%s: no documented range", k)
		}
	}
}
