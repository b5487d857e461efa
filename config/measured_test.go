package config

import (
	"strings"
	"testing"
	"time"
)

func TestMeasuredParses(t *testing.T) {
	src := `workloads:
  - namespace: shop
    kind: Deployment
    name: api
    deadTime: 47s
    podRate: 85.3
    queries:
      requestRate: sum by (pod) (rate(my_requests_total{namespace="$namespace"}[$window]))
    measured:
      deadTime: {query: "q1", window: 7d, quantile: 0.9, samples: 312, at: 2026-12-01T10:00:00Z}
      podRate:
        query: q2
        window: 36h
        quantile: 0.5
        samples: 40
        at: 2026-12-01T10:00:00Z
`
	c, err := Parse("c.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	w := c.Workloads[0]
	m := w.Assumptions.DeadTime.Measured
	if m == nil || m.Query != "q1" || m.Window != "7d" || m.Quantile != 0.9 || m.Samples != 312 ||
		!m.At.Equal(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)) || m.Line != 10 {
		t.Fatalf("deadTime measured = %+v", m)
	}
	if p := w.Assumptions.PodRate.Measured; p == nil || p.Window != "36h" || p.Line != 12 {
		t.Fatalf("podRate measured = %+v", p)
	}
	if w.Assumptions.Demand.Measured != nil {
		t.Fatal("demand has no record")
	}
	if !strings.Contains(w.Queries.RequestRate, "my_requests_total") {
		t.Fatalf("queries = %+v", w.Queries)
	}
	got := m.Summary(SampleUnit(KeyDeadTime))
	if got != "measured p90 over 7d, 312 pods, 2026-12-01" {
		t.Fatalf("Summary = %q", got)
	}
	// The record travels with the value when entries are merged.
	a, _ := c.WorkloadAssumptions("shop", ObjectRef{Kind: "Deployment", Name: "api"})
	if a.DeadTime.Measured != m {
		t.Fatal("WorkloadAssumptions dropped the measured record")
	}
}

func TestMeasuredErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"no value beside it", `workloads:
  - name: api
    measured:
      deadTime: {query: q, window: 7d, samples: 3, at: 2026-12-01T10:00:00Z}
`, "c.yaml:4: workloads[0].measured.deadTime: the entry sets no deadTime"},
		{"missing samples", `workloads:
  - name: api
    deadTime: 40s
    measured:
      deadTime: {query: q, window: 7d, at: 2026-12-01T10:00:00Z}
`, "c.yaml:5: workloads[0].measured.deadTime: samples is required"},
		{"bad window", `workloads:
  - name: api
    deadTime: 40s
    measured:
      deadTime: {query: q, window: 7days, samples: 3, at: 2026-12-01T10:00:00Z}
`, `c.yaml:5: workloads[0].measured.deadTime.window: "7days" is not a window`},
		{"bad quantile", `workloads:
  - name: api
    deadTime: 40s
    measured:
      deadTime:
        query: q
        window: 7d
        quantile: 1.5
        samples: 3
        at: 2026-12-01T10:00:00Z
`, `c.yaml:8: workloads[0].measured.deadTime.quantile: "1.5" is not a quantile`},
		{"bad time", `workloads:
  - name: api
    deadTime: 40s
    measured:
      deadTime: {query: q, window: 7d, samples: 3, at: yesterday}
`, `c.yaml:5: workloads[0].measured.deadTime.at: "yesterday" is not a time`},
		{"unknown key", `workloads:
  - name: api
    step: 4x
    measured:
      step: {query: q, window: 7d, samples: 3, at: 2026-12-01T10:00:00Z}
`, `c.yaml:5: unknown key "step" in workloads[0].measured`},
		{"unknown field", `workloads:
  - name: api
    deadTime: 40s
    measured:
      deadTime: {query: q, window: 7d, samples: 3, at: 2026-12-01T10:00:00Z, by: me}
`, `c.yaml:5: unknown key "by" in workloads[0].measured.deadTime`},
		{"not a mapping", `workloads:
  - name: api
    deadTime: 40s
    measured:
      deadTime: yes
`, `c.yaml:5: workloads[0].measured.deadTime must be a mapping`},
		{"empty query override", `workloads:
  - name: api
    queries: {requestRate: ""}
`, `c.yaml:3: workloads[0].queries.requestRate: empty query`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestParseWindow(t *testing.T) {
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, "36h": 36 * time.Hour, "90m": 90 * time.Minute} {
		got, err := ParseWindow(in)
		if err != nil || got != want {
			t.Errorf("ParseWindow(%q) = %v, %v", in, got, err)
		}
		if back, _ := ParseWindow(FormatWindow(got)); back != got {
			t.Errorf("FormatWindow(%v) = %q does not read back", got, FormatWindow(got))
		}
	}
	for _, bad := range []string{"", "0d", "-1h", "d", "7 days"} {
		if _, err := ParseWindow(bad); err == nil {
			t.Errorf("ParseWindow(%q) accepted", bad)
		}
	}
}

// SampleUnit reads the dead time as pods in both spellings of its key
// (units.SampleUnit, which the report's Measured.Summary uses, holds the
// names as literals) and every other measured key as samples.
func TestSampleUnit(t *testing.T) {
	for _, k := range MeasuredKeys() {
		want := "samples"
		if k == KeyDeadTime {
			want = "pods"
		}
		if got := SampleUnit(k); got != want {
			t.Errorf("SampleUnit(%q) = %q, want %q", k, got, want)
		}
		if got := SampleUnit(Key(k.YAMLName())); got != want {
			t.Errorf("SampleUnit(%q) = %q, want %q", k.YAMLName(), got, want)
		}
	}
}
