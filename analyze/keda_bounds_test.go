package analyze

import (
	"fmt"
	"strings"
	"testing"

	"github.com/capreport/capreport/analyze/keda"
	"github.com/capreport/capreport/check"
)

// kedaBoundsCase is one case of KEDA's TestCheckReplicaCountBoundsAreValid
// (kedacore/keda apis/keda/v1alpha1/scaledobject_types_test.go), or one
// derived from CheckReplicaCountBoundsAreValid in scaledobject_types.go
// (named "derived: …"). upstreamErr is the error KEDA returns ("" when
// it accepts the bounds); the case checks keda.BoundsError and then a whole
// ScaledObject through Extract.
type kedaBoundsCase struct {
	name           string
	min, max, idle *int32
	upstreamErr    string // KEDA's error, or "" for valid
	text           string // a substring of capreport's message
	// apiServerRejects: KEDA's check passes, but the HPA it then creates
	// (minReplicas 1) fails the API server's validation, so the whole
	// translation still refuses it (found by internal/kedadiff).
	apiServerRejects bool
}

func i32(v int32) *int32 { return &v }

func (c kedaBoundsCase) run(t *testing.T) {
	t.Helper()
	msg, remedy := keda.BoundsError(c.min, c.max, c.idle)
	if (msg != "") != (c.upstreamErr != "") {
		t.Fatalf("keda.BoundsError = %q, KEDA says %q", msg, c.upstreamErr)
	}
	if c.upstreamErr != "" && (!strings.Contains(msg, c.text) || remedy == "") {
		t.Errorf("keda.BoundsError = %q (remedy %q), want it to mention %q", msg, remedy, c.text)
	}
	// The whole translation agrees: an invalid-autoscaler finding (and
	// an unpriced autoscaler) exactly when KEDA rejects the bounds.
	fs := extractStream(t, stream(soDoc("keda.sh/v1alpha1", kedaSpec(c.boundsYAML(), sqsTrigger)), deployment(requests)))
	var invalid []string
	for _, f := range fs {
		if f.Check == check.InvalidAutoscaler {
			invalid = append(invalid, f.Message)
		}
	}
	if want := c.upstreamErr != "" || c.apiServerRejects; (len(invalid) > 0) != want {
		t.Errorf("Extract: invalid-autoscaler findings %q, want one: %v", invalid, want)
	}
}

func (c kedaBoundsCase) boundsYAML() string {
	var b strings.Builder
	for _, f := range []struct {
		key string
		v   *int32
	}{{"minReplicaCount", c.min}, {"maxReplicaCount", c.max}, {"idleReplicaCount", c.idle}} {
		if f.v != nil {
			fmt.Fprintf(&b, "  %s: %d\n", f.key, *f.v)
		}
	}
	return b.String()
}

func TestCheckReplicaCountBoundsAreValid(t *testing.T) {
	cases := []kedaBoundsCase{
		// Upstream's cases.
		{name: "Valid: min 1, max 5, no idle", min: i32(1), max: i32(5)},
		{name: "Valid: min 1, max 5, idle 0", min: i32(1), max: i32(5), idle: i32(0)},
		{name: "Invalid: min 2 > max 1", min: i32(2), max: i32(1),
			upstreamErr: "MinReplicaCount=2 must be less than MaxReplicaCount=1", text: "minReplicaCount 2 exceeds maxReplicaCount 1"},
		{name: "Invalid: idle 1 == min 1", min: i32(1), max: i32(5), idle: i32(1),
			upstreamErr: "IdleReplicaCount=1 must be less than MinReplicaCount=1", text: "idleReplicaCount 1 must be below minReplicaCount 1"},
		{name: "Invalid: idle 2 > min 1", min: i32(1), max: i32(5), idle: i32(2),
			upstreamErr: "IdleReplicaCount=2 must be less than MinReplicaCount=1", text: "idleReplicaCount 2 must be below minReplicaCount 1"},
		// Derived from CheckReplicaCountBoundsAreValid: a set minimum is
		// GetHPAMinReplicas() (1 for 0), an unset one is 0.
		{name: "derived: min 0, idle 0 (idle below the HPA minimum 1)", min: i32(0), max: i32(10), idle: i32(0)},
		{name: "derived: min 0, default max, idle 0", min: i32(0), idle: i32(0)},
		{name: "derived: min unset, idle 0", max: i32(10), idle: i32(0),
			upstreamErr: "IdleReplicaCount=0 must be less than MinReplicaCount=0", text: "idleReplicaCount 0 must be below minReplicaCount, which counts as 0 when unset"},
		{name: "derived: min 0, idle 1", min: i32(0), max: i32(10), idle: i32(1),
			upstreamErr: "IdleReplicaCount=1 must be less than MinReplicaCount=1", text: "idleReplicaCount 1 must be below minReplicaCount 0, which counts as 1"},
		{name: "derived: min 0, max 0", min: i32(0), max: i32(0),
			upstreamErr: "MinReplicaCount=1 must be less than MaxReplicaCount=0", text: "minReplicaCount 0, which counts as 1 (the HPA minimum KEDA computes) exceeds maxReplicaCount 0"},
		{name: "derived: min unset, max 0", max: i32(0), apiServerRejects: true},
		{name: "derived: min 101, default max 100", min: i32(101),
			upstreamErr: "MinReplicaCount=101 must be less than MaxReplicaCount=100", text: "minReplicaCount 101 exceeds maxReplicaCount 100"},
		{name: "derived: min 2, max 5, idle 1", min: i32(2), max: i32(5), idle: i32(1)},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
