package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/internal/testutil"
)

// init on a chart monorepo whose chart prices nothing on its defaults
// writes a value set for each ci/*-values.yaml that turns an autoscaler
// on, and says what calibration can measure and what the team must state.
func TestInitWritesCIValueSets(t *testing.T) {
	dir := t.TempDir()
	hpa := "{{- if .Values.autoscaling.enabled }}\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n" +
		"  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: {{ .Release.Name }}}\n  minReplicas: 1\n  maxReplicas: 5\n" +
		"  metrics:\n    - type: Resource\n      resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}\n{{- end }}\n"
	testutil.WriteTree(t, dir, map[string]string{
		"charts/web/Chart.yaml":             "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"charts/web/values.yaml":            "autoscaling:\n  enabled: false\n",
		"charts/web/templates/hpa.yaml":     hpa,
		"charts/web/ci/hpa-values.yaml":     "autoscaling:\n  enabled: true\n",
		"charts/web/ci/default-values.yaml": "autoscaling:\n  enabled: false\n",
		"apps/hpa.yaml":                     rootTestHPA,
	})
	var out, errOut bytes.Buffer
	if code := run([]string{"init", dir, "--stdout"}, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut}); code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	body := out.String()
	for _, want := range []string{
		"sources:\n  - path: charts/web\n    valueSets:\n      - {name: hpa, values: [charts/web/ci/hpa-values.yaml]}  # 1 autoscaler(s)\n",
		"# deadTime: 90s  # missing (capreport calibrate measures it)",
		"# latencyTarget: 30s  # missing (state it: the cluster cannot tell)",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("init lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "default-values.yaml") {
		t.Errorf("a value set that prices nothing was written:\n%s", body)
	}
	cfg, err := config.Parse(config.FileName, out.Bytes())
	if err != nil || len(cfg.Sources) != 1 {
		t.Fatalf("the written file does not load as one source: %v", err)
	}
	errOut.Reset()
	if code := run([]string{"init", dir}, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut}); code != cmdutil.ExitOK {
		t.Fatalf("init: exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "capreport calibrate --prometheus URL can measure: deadTime (1), podRate (1)") ||
		!strings.Contains(errOut.String(), "the team must state: latencyTarget (1)") {
		t.Errorf("stderr:\n%s", errOut.String())
	}
}
