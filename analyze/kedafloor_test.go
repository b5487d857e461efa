package analyze

import (
	"strings"
	"testing"

	"github.com/capreport/capreport/check"
)

// floorCase is one ScaledObject's replica bounds as KEDA reads them: the
// idle floor the inventory shows, the generated HPA's own floor, and
// whether an idle period takes the target to zero.
type floorCase struct {
	name     string
	bounds   string   // spec lines before triggers
	ann      []string // annotations
	triggers string
	floor    int32
	hpaFloor int32
	toZero   bool
	// activation and field are what gates 0 → 1 on the first metric.
	activation int64
	field      string
}

func (c floorCase) run(t *testing.T) {
	t.Helper()
	triggers := c.triggers
	if triggers == "" {
		triggers = kafkaTrigger
	}
	s := stream(deployment(requests), soDoc("keda.sh/v1alpha1", kedaSpec(c.bounds, triggers), c.ann...))
	objs, err := decodeObjects(checksFile, []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	inv := Extract(objs, nil)
	if len(inv.Autoscalers) != 1 || inv.Autoscalers[0].KEDA == nil {
		t.Fatalf("%s: want one ScaledObject, got %+v", c.name, inv.Autoscalers)
	}
	a := &inv.Autoscalers[0]
	if got := a.Floor(); got != c.floor {
		t.Errorf("%s: Floor() = %d, want %d", c.name, got, c.floor)
	}
	if got := a.HPAFloor(); got != c.hpaFloor {
		t.Errorf("%s: HPAFloor() = %d, want %d", c.name, got, c.hpaFloor)
	}
	if got := a.KEDA.ScalesToZero(); got != c.toZero {
		t.Errorf("%s: ScalesToZero() = %v, want %v", c.name, got, c.toZero)
	}
	if len(a.Metrics) == 0 {
		t.Fatalf("%s: no metrics", c.name)
	}
	if milli, field := a.KEDA.ActivationOf(a.Metrics[0]); milli != c.activation || field != c.field {
		t.Errorf("%s: ActivationOf = %d %q, want %d %q", c.name, milli, field, c.activation, c.field)
	}
}

// A ScaledObject without minReplicaCount has KEDA's floor of 0, below the
// generated HPA's 1 (the acceptance: it shows 0, not 1).
func TestKEDAFloor(t *testing.T) {
	const lag = "activationLagThreshold"
	for _, c := range []floorCase{
		{name: "minReplicaCount unset", bounds: "  maxReplicaCount: 10\n",
			floor: 0, hpaFloor: 1, toZero: true, field: lag},
		{name: "minReplicaCount 0", bounds: "  minReplicaCount: 0\n  maxReplicaCount: 10\n",
			floor: 0, hpaFloor: 1, toZero: true, field: lag},
		{name: "minReplicaCount 1 keeps a pod", bounds: kedaBounds,
			floor: 1, hpaFloor: 1, toZero: false, field: lag},
		{name: "minReplicaCount 3", bounds: "  minReplicaCount: 3\n  maxReplicaCount: 10\n",
			floor: 3, hpaFloor: 3, toZero: false, field: lag},
		// idleReplicaCount 0 below min 2: idle takes it to 0, active to 2.
		{name: "idleReplicaCount 0 under minReplicaCount 2", bounds: "  minReplicaCount: 2\n  idleReplicaCount: 0\n  maxReplicaCount: 10\n",
			floor: 0, hpaFloor: 2, toZero: true, field: lag},
		// KEDA skips the scale-in while scale-in is paused, and never
		// goes idle while activation is forced.
		{name: "paused-scale-in", bounds: "  maxReplicaCount: 10\n", ann: []string{`autoscaling.keda.sh/paused-scale-in: "true"`},
			floor: 0, hpaFloor: 1, toZero: false, field: lag},
		{name: "force-activation", bounds: "  maxReplicaCount: 10\n", ann: []string{`autoscaling.keda.sh/force-activation: "true"`},
			floor: 0, hpaFloor: 1, toZero: false, field: lag},
		{name: "force-activation false", bounds: "  maxReplicaCount: 10\n", ann: []string{`autoscaling.keda.sh/force-activation: "false"`},
			floor: 0, hpaFloor: 1, toZero: true, field: lag},
		// KEDA scales in only for a minimum of exactly 0: a negative one
		// leaves the HPA's 1.
		{name: "negative minReplicaCount", bounds: "  minReplicaCount: -1\n  maxReplicaCount: 10\n",
			floor: 1, hpaFloor: 1, toZero: false, field: lag},
		{name: "activation threshold", bounds: "  maxReplicaCount: 10\n",
			triggers: "    - type: kafka\n      metadata: {bootstrapServers: k:9092, consumerGroup: g, topic: t, lagThreshold: \"10\", activationLagThreshold: \"4\"}\n",
			floor:    0, hpaFloor: 1, toZero: true, activation: 4000, field: lag},
		{name: "sqs activation", bounds: "  maxReplicaCount: 10\n",
			triggers: "    - type: aws-sqs-queue\n      metadata: {queueURL: \"https://sqs.eu-west-1.amazonaws.com/1/q\", queueLength: \"5\", activationQueueLength: \"2\"}\n",
			floor:    0, hpaFloor: 1, toZero: true, activation: 2000, field: "activationQueueLength"},
		// With a formula KEDA activates on the composite alone.
		{name: "scalingModifiers activationTarget", bounds: "  maxReplicaCount: 10\n  advanced:\n    scalingModifiers: {formula: \"a + b\", target: \"10\", activationTarget: \"2.5\"}\n",
			triggers: "    - type: kafka\n      name: a\n      metadata: {bootstrapServers: k:9092, consumerGroup: g, topic: t, activationLagThreshold: \"7\"}\n" +
				"    - type: kafka\n      name: b\n      metadata: {bootstrapServers: k:9092, consumerGroup: g, topic: u}\n",
			floor: 0, hpaFloor: 1, toZero: true, activation: 2500, field: "advanced.scalingModifiers.activationTarget"},
	} {
		c.run(t)
	}
}

// An activationTarget KEDA cannot parse makes every poll an error: the
// object never activates, which is a finding, and the threshold stays 0.
func TestKEDAActivationTargetInvalid(t *testing.T) {
	spec := kedaSpec("  maxReplicaCount: 10\n  advanced:\n    scalingModifiers: {formula: \"a\", target: \"10\", activationTarget: \"lots\"}\n",
		"    - type: kafka\n      name: a\n      metadata: {bootstrapServers: k:9092, consumerGroup: g, topic: t}\n")
	fs := extractStream(t, stream(deployment(requests), soDoc("keda.sh/v1alpha1", spec)))
	found := false
	for _, f := range fs {
		if f.Check == check.InvalidAutoscaler && strings.Contains(f.Message, "activationTarget") {
			found = true
		}
	}
	if !found {
		t.Errorf("no invalid-autoscaler finding for activationTarget \"lots\": %+v", fs)
	}
}
