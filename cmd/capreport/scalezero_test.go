package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/inert"
	"github.com/capreport/capreport/internal/testutil"
)

// scaleToZeroDir holds two KEDA consumers that scale to zero: mailer
// without minReplicaCount (first message after idle: 30 s + 90 s, over its
// 1 min 55 s target) and thumbnailer (1.8 s + 5 s + 20 s, within 1 min).
func scaleToZeroDir(t *testing.T) string {
	return filepath.Join(testutil.RepoRoot(t), "testdata", "scale-to-zero")
}

// Issue 33's acceptance, through the binary's code path: a ScaledObject
// without minReplicaCount shows 0 and its first message's wait, and fails
// the check of its own.
func TestScaleToZeroReport(t *testing.T) {
	out, stderr, code := capture(scaleToZeroDir(t), "--format", "json")
	if code != cmdutil.ExitFail {
		t.Fatalf("exit %d, want %d (mailer fails); stderr %s", code, cmdutil.ExitFail, stderr)
	}
	if err := inert.NewValidator(t).Validate([]byte(out)); err != nil {
		t.Fatalf("the report does not validate against report.v1.json: %v", err)
	}
	var r contract.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	byID := map[string]contract.Workload{}
	for _, w := range r.Workloads {
		byID[w.ID] = w
	}
	mailer := byID["jobs/ScaledObject/mailer"]
	if mailer.MinReplicas != 0 || mailer.KEDA == nil || mailer.KEDA.HPAMinReplicas != 1 || mailer.KEDA.MinReplicaCountFrom != "default" {
		t.Errorf("mailer min %d, keda %+v; want 0 (unset), the HPA's 1 beside it", mailer.MinReplicas, mailer.KEDA)
	}
	if mailer.Time == nil || mailer.Time.ScaleFromZero == nil || mailer.Time.ScaleFromZero.FirstMessageWaitSeconds != 120 {
		t.Fatalf("mailer: no first-message wait of 120 s: %+v", mailer.Time)
	}
	if mailer.Verdict != contract.VerdictFail || !hasLiveFinding(mailer, check.FirstMessageWaitOverTarget, check.SeverityError) {
		t.Errorf("mailer verdict %s, findings %+v; want fail on %s", mailer.Verdict, mailer.Findings, check.FirstMessageWaitOverTarget)
	}
	thumb := byID["jobs/ScaledObject/thumbnailer"]
	if thumb.MinReplicas != 0 || thumb.Time == nil || thumb.Time.ScaleFromZero == nil ||
		thumb.Time.ScaleFromZero.FirstMessageWaitSeconds != 26.8 || thumb.Verdict != contract.VerdictPass {
		t.Errorf("thumbnailer: min %d, time %+v, verdict %s; want 0, 26.8 s, pass", thumb.MinReplicas, thumb.Time, thumb.Verdict)
	}

	// The terminal ledger quotes the wait and the check.
	text, _, code := capture(scaleToZeroDir(t))
	for _, want := range []string{
		"from zero the first message waits 2 min", "missed: 2 min vs 115 s",
		"from zero the first message waits 26.8 s",
		"first-message-wait-over-target: after 5 min 30 s without messages KEDA has scaled the consumer to zero: the first message then waits up to 2 min (polling interval 30 s + dead time 90 s)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("ledger (exit %d) lacks %q:\n%s", code, want, text)
		}
	}
}

func hasLiveFinding(w contract.Workload, id, severity string) bool {
	for _, f := range w.Findings {
		if f.Check == id && f.Severity == severity && !f.Ignored {
			return true
		}
	}
	return false
}

// The inventory shows the floor as KEDA does, with what decides the
// scale to and from it.
func TestScaleToZeroInventory(t *testing.T) {
	out, stderr, code := capture("list", scaleToZeroDir(t), "--format", "json")
	if code != cmdutil.ExitOK {
		t.Fatalf("list: exit %d: %s", code, stderr)
	}
	var inv contract.Inventory
	if err := json.Unmarshal([]byte(out), &inv); err != nil {
		t.Fatal(err)
	}
	got := map[string]contract.InventoryAutoscaler{}
	for _, a := range inv.Autoscalers {
		got[a.ID] = a
	}
	mailer, thumb := got["jobs/ScaledObject/mailer"], got["jobs/ScaledObject/thumbnailer"]
	if mailer.MinReplicas != 0 || mailer.KEDA == nil || !mailer.KEDA.ScalesToZero || mailer.KEDA.MinReplicaCount != 0 ||
		mailer.KEDA.PollingIntervalSeconds != 30 || mailer.KEDA.CooldownPeriodSeconds != 300 {
		t.Errorf("mailer: min %d, keda %+v; want 0, scales to zero, polling 30 s, cooldown 300 s", mailer.MinReplicas, mailer.KEDA)
	}
	if thumb.KEDA == nil || len(thumb.KEDA.Activations) != 1 || thumb.KEDA.Activations[0] !=
		(contract.KEDAActivation{Trigger: 0, Type: "aws-sqs-queue", Param: "activationQueueLength", Threshold: 9}) ||
		thumb.KEDA.IdleReplicaCount == nil || *thumb.KEDA.IdleReplicaCount != 0 || thumb.KEDA.CooldownPeriodSeconds != 60 {
		t.Errorf("thumbnailer keda %+v; want idle 0, cooldown 60 s, activationQueueLength 9", thumb.KEDA)
	}
	text, _, _ := capture("list", scaleToZeroDir(t))
	for _, want := range []string{
		"replicas  min 0, max 100",
		"keda      minReplicaCount 0 (default), HPA min 1, polling 30s, cooldown 5m, activation kafka > 0; scales to zero",
		"keda      minReplicaCount 0 (manifest), idleReplicaCount 0, HPA min 1, polling 5s, cooldown 1m, activation aws-sqs-queue > 9; scales to zero",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("list lacks %q:\n%s", want, text)
		}
	}
}

// explain spells the law out term by term.
func TestScaleToZeroExplain(t *testing.T) {
	out, stderr, code := capture("explain", "thumbnailer", scaleToZeroDir(t))
	if code != cmdutil.ExitOK {
		t.Fatalf("explain: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"Scale from zero",
		"replicas 0..20: after 65 s without messages KEDA leaves no pod, and its HPA (min 1) does nothing at zero",
		"the first message then waits up to 26.8 s = 1.8 s for the 10 messages that activate it + polling interval 5 s + dead time 20 s",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
}
