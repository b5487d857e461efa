package rules

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
)

// findingOf is w's live finding of check id, nil when it has none.
func findingOf(w contract.Workload, id string) *contract.Finding {
	for i, f := range w.Findings {
		if f.Check == id && !f.Ignored {
			return &w.Findings[i]
		}
	}
	return nil
}

// Issue 33's acceptance: a ScaledObject without minReplicaCount shows 0 in
// the ledger and its first message's wait after an idle period, held
// against the latency target by a check of its own.
func TestScaleFromZeroThroughThePipeline(t *testing.T) {
	r := buildDir(t, filepath.Join(testutil.RepoRoot(t), "testdata", "scale-to-zero"), nil)

	mailer := workload(t, r, "jobs/ScaledObject/mailer")
	if mailer.MinReplicas != 0 || mailer.MaxReplicas != 100 {
		t.Errorf("mailer replicas %d..%d, want 0..100 (minReplicaCount unset is 0)", mailer.MinReplicas, mailer.MaxReplicas)
	}
	k := mailer.KEDA
	if k == nil || k.MinReplicaCount != 0 || k.MinReplicaCountFrom != "default" || k.HPAMinReplicas != 1 || !k.ScalesToZero ||
		k.PollingIntervalSeconds != 30 || k.CooldownPeriodSeconds != 300 || len(k.Activations) != 1 || k.Activations[0].Param != "activationLagThreshold" {
		t.Errorf("mailer keda %+v; want min 0 (default), HPA min 1, polling 30, cooldown 300, scales to zero, one kafka activation", k)
	}
	if mailer.Time == nil || mailer.Time.ScaleFromZero == nil {
		t.Fatalf("mailer has no scale-from-zero bill: %+v (unpriced %q)", mailer.Time, mailer.UnpricedReason)
	}
	if z := *mailer.Time.ScaleFromZero; z != (contract.ScaleFromZero{FirstMessageWaitSeconds: 120, ActivationMessages: 1,
		PollingIntervalSeconds: 30, DeadTimeSeconds: 90, IdleAfterSeconds: 330}) {
		t.Errorf("mailer scale from zero %+v; want 30 s + 90 s = 120 s after 330 s idle", z)
	}
	f := findingOf(mailer, check.FirstMessageWaitOverTarget)
	if f == nil || f.Severity != check.SeverityError || !strings.Contains(f.Message, "2 min") {
		t.Fatalf("mailer: %s missing or not an error: %+v", check.FirstMessageWaitOverTarget, mailer.Findings)
	}
	if len(f.RestsOn) != 2 || f.RestsOn[0].Assumption != "deadTime" || f.RestsOn[1].Assumption != "latencyTarget" {
		t.Errorf("rests on %+v, want deadTime and latencyTarget", f.RestsOn)
	}
	// At rest it holds its target: the new check is the one that fails it.
	for _, id := range []string{check.Hunting, check.LatencyFloor, check.StandingDelayOverTarget} {
		if hasCheck(mailer, id) {
			t.Errorf("mailer raised %s; its figures at rest hold the target", id)
		}
	}
	if l := mailer.Latency; l == nil || l.Basis != "first message after idle" || l.ExpectedSeconds != 120 || l.Met {
		t.Errorf("mailer latency %+v; want the first message's 120 s, missed", l)
	}
	if mailer.Verdict != contract.VerdictFail {
		t.Errorf("mailer verdict %s, want fail", mailer.Verdict)
	}

	thumb := workload(t, r, "jobs/ScaledObject/thumbnailer")
	if thumb.MinReplicas != 0 || thumb.KEDA == nil || thumb.KEDA.MinReplicaCountFrom != "manifest" ||
		thumb.KEDA.IdleReplicaCount == nil || *thumb.KEDA.IdleReplicaCount != 0 {
		t.Errorf("thumbnailer min %d keda %+v; want 0 from the manifest, idle 0", thumb.MinReplicas, thumb.KEDA)
	}
	if thumb.Time == nil || thumb.Time.ScaleFromZero == nil {
		t.Fatalf("thumbnailer has no scale-from-zero bill")
	}
	// activationQueueLength 9: the tenth message, 9 / (5 msg/s) after the
	// first, then a 5-s poll and a 20-s dead time.
	z := thumb.Time.ScaleFromZero
	if z.ActivationMessages != 10 || z.ActivationWaitSeconds != 1.8 || z.FirstMessageWaitSeconds != 26.8 || z.IdleAfterSeconds != 65 {
		t.Errorf("thumbnailer scale from zero %+v; want 10 messages, 1.8 s + 5 s + 20 s = 26.8 s, idle after 65 s", z)
	}
	if hasCheck(thumb, check.FirstMessageWaitOverTarget) || thumb.Verdict != contract.VerdictPass {
		t.Errorf("thumbnailer: verdict %s, findings %v; 26.8 s is within 1 min", thumb.Verdict, checkIDs(thumb))
	}
}

// A consumer that keeps a pod has no wait from zero and its floor as
// written; the HPA's floor and KEDA's agree.
func TestNoScaleFromZeroWithAMinimum(t *testing.T) {
	r := buildDir(t, filepath.Join(testutil.RepoRoot(t), "testdata", "specimen"), nil)
	w := workload(t, r, "essays/ScaledObject/kit-d150")
	if w.MinReplicas != 1 || w.KEDA == nil || w.KEDA.ScalesToZero || w.KEDA.MinReplicaCountFrom != "manifest" {
		t.Errorf("kit-d150 min %d keda %+v; want 1 from the manifest, never at zero", w.MinReplicas, w.KEDA)
	}
	if w.Time == nil || w.Time.ScaleFromZero != nil {
		t.Errorf("kit-d150 prices a wait from zero: %+v", w.Time)
	}
	if hpa := workload(t, r, "essays/HorizontalPodAutoscaler/specimen"); hpa.KEDA != nil {
		t.Errorf("an HPA carries KEDA settings: %+v", hpa.KEDA)
	}
}

// The wait rests on the demand and the pod rate only when an activation
// threshold makes it wait for more messages.
func TestFirstMessageWaitBasis(t *testing.T) {
	plain := &contract.TimeBill{ScaleFromZero: &contract.ScaleFromZero{FirstMessageWaitSeconds: 120}}
	if got := timeBasisOf(plain)[check.FirstMessageWaitOverTarget]; strings.Join(got, ",") != "deadTime,latencyTarget" {
		t.Errorf("basis without activation wait: %v", got)
	}
	gated := &contract.TimeBill{ScaleFromZero: &contract.ScaleFromZero{FirstMessageWaitSeconds: 121, ActivationWaitSeconds: 1}}
	if got := timeBasisOf(gated)[check.FirstMessageWaitOverTarget]; strings.Join(got, ",") != "deadTime,latencyTarget,demand,podRate" {
		t.Errorf("basis with an activation wait: %v", got)
	}
	if got := timeBasis[check.FirstMessageWaitOverTarget]; len(got) != 2 {
		t.Errorf("timeBasisOf changed the shared map: %v", got)
	}
}

// A ScaledObject with maxReplicaCount 1 and no minReplicaCount still
// changes its count, 0 ↔ 1, by KEDA's activation: min-equals-max is for
// an autoscaler pinned at one count, here one with minReplicaCount 1.
func TestMinEqualsMaxUsesKEDAFloor(t *testing.T) {
	so := func(name, minRC string) string {
		return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ` + name + `, namespace: t}
spec:
  selector: {matchLabels: {app: ` + name + `}}
  template:
    metadata: {labels: {app: ` + name + `}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: 250m}}}]
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: ` + name + `, namespace: t}
spec:
  scaleTargetRef: {name: ` + name + `}` + minRC + `
  maxReplicaCount: 1
  triggers:
    - type: kafka
      metadata: {bootstrapServers: "k:9092", consumerGroup: g, topic: t, lagThreshold: "10"}
---
`
	}
	r := repoOf(t, "", so("zero", ""), so("pinned", "\n  minReplicaCount: 1"))
	if w := workload(t, r, "t/ScaledObject/zero"); hasCheck(w, check.MinEqualsMax) || w.MinReplicas != 0 {
		t.Errorf("zero: min %d, findings %v; want 0 and no %s", w.MinReplicas, checkIDs(w), check.MinEqualsMax)
	}
	if w := workload(t, r, "t/ScaledObject/pinned"); !hasCheck(w, check.MinEqualsMax) {
		t.Errorf("pinned: findings %v; want %s", checkIDs(w), check.MinEqualsMax)
	}
}
