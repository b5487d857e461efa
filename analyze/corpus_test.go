package analyze

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render"
)

// corpusAutoscaler is one line of ../shared/corpus/README.md's expectations.
type corpusAutoscaler struct {
	kind, name, namespace, apiVersion string
	target                            string // Kind/name
	min, max                          int32
	metrics                           []string // Short() forms, in any order (HPAs) or trigger types (ScaledObjects)
	behavior                          bool
	// dangling: the case does not contain the target (eks-workshop-keda
	// ships the ScaledObject alone), so a dangling-target finding is right.
	dangling bool
}

// corpusCase renders one corpus directory as README.md says and checks the
// autoscalers Extract finds.
type corpusCase struct {
	dir        string
	helm       bool
	renderRoot string // Kustomize: the kustomization to build, relative to dir
	want       []corpusAutoscaler
}

func (c corpusCase) run(t *testing.T, corpus string) {
	t.Helper()
	root := filepath.Join(corpus, c.dir)
	opts := render.DefaultOptions()
	opts.KubeVersion = "1.37.0"
	switch {
	case c.helm:
		opts.Helm = render.HelmValues{ReleaseName: "rel", Namespace: "demo"}
		if _, err := os.Stat(filepath.Join(root, "capreport-values.yaml")); err == nil {
			opts.Helm.ValuesFiles = []string{"capreport-values.yaml"}
		}
	case c.renderRoot != "":
		opts.Sources = []render.SourceSpec{{Path: c.renderRoot, Type: render.SourceKustomize}}
	}
	res, err := render.Render(context.Background(), root, opts)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	objs := res.Objects
	if c.renderRoot != "" {
		// Only the named kustomization counts; the directories it refers
		// to may be discovered as sources of their own.
		want := filepath.ToSlash(filepath.Clean(c.renderRoot))
		objs = nil
		for _, o := range res.Objects {
			if o.Origin.Source == want {
				objs = append(objs, o)
			}
		}
	}
	inv := Extract(objs, nil)
	if len(inv.Autoscalers) != len(c.want) {
		var got []string
		for _, a := range inv.Autoscalers {
			got = append(got, a.ID+" from "+a.Origin.Source)
		}
		t.Fatalf("got %d autoscalers %v, want %d (sources %+v)", len(got), got, len(c.want), res.Sources)
	}
	for _, w := range c.want {
		var a *Autoscaler
		for i := range inv.Autoscalers {
			x := &inv.Autoscalers[i]
			if x.Kind == w.kind && x.Name == w.name {
				a = x
			}
		}
		if a == nil {
			t.Errorf("%s %s not found", w.kind, w.name)
			continue
		}
		if a.Namespace != w.namespace || a.APIVersion != w.apiVersion {
			t.Errorf("%s: namespace %q apiVersion %s, want %q %s", a.ID, a.Namespace, a.APIVersion, w.namespace, w.apiVersion)
		}
		if got := a.Target.Kind + "/" + a.Target.Name; got != w.target || a.Target.Found == w.dangling {
			t.Errorf("%s: target %s (found %v), want %s", a.ID, got, a.Target.Found, w.target)
		}
		if a.Floor() != w.min || a.HPA.MaxReplicas != w.max {
			t.Errorf("%s: min/max %d/%d, want %d/%d", a.ID, a.Floor(), a.HPA.MaxReplicas, w.min, w.max)
		}
		// A ScaledObject's generated HPA never goes below 1, whatever
		// KEDA's own floor (keda.md §1.3).
		if hpaMin := max(w.min, 1); *a.HPA.MinReplicas != hpaMin {
			t.Errorf("%s: HPA minReplicas %d, want %d", a.ID, *a.HPA.MinReplicas, hpaMin)
		}
		var got []string
		if a.KEDA != nil {
			for _, tr := range a.KEDA.Triggers {
				got = append(got, tr.Type)
			}
		} else {
			for _, m := range a.Metrics {
				got = append(got, m.Short())
			}
		}
		sort.Strings(got)
		want := append([]string(nil), w.metrics...)
		sort.Strings(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: metrics %q, want %q", a.ID, got, want)
		}
		if (a.HPA.Behavior != nil) != w.behavior {
			t.Errorf("%s: behavior %v, want present=%v", a.ID, a.HPA.Behavior, w.behavior)
		}
		if w.dangling && !hasFinding(a.Findings, check.DanglingTarget) {
			t.Errorf("%s: no dangling-target finding", a.ID)
		}
		if a.Origin.File == "" {
			t.Errorf("%s: no origin file", a.ID)
		}
		t.Logf("%s → %s/%s min %d (HPA %d) max %d signal %s metrics %v unpriced %q", a.ID, a.Target.Kind, a.Target.Name,
			a.Floor(), *a.HPA.MinReplicas, a.HPA.MaxReplicas, a.Signal, got, a.Unpriced)
	}
}

func TestCorpus(t *testing.T) {
	corpus := testutil.Corpus(t)
	hpa := func(name, ns, av, target string, min, max int32, behavior bool, metrics ...string) corpusAutoscaler {
		return corpusAutoscaler{kind: KindHPA, name: name, namespace: ns, apiVersion: av, target: target, min: min, max: max, metrics: metrics, behavior: behavior}
	}
	so := func(name, ns, target string, min, max int32, behavior bool, triggers ...string) corpusAutoscaler {
		return corpusAutoscaler{kind: KindScaledObject, name: name, namespace: ns, apiVersion: "keda.sh/v1alpha1", target: target, min: min, max: max, metrics: triggers, behavior: behavior}
	}
	dangling := func(a corpusAutoscaler) corpusAutoscaler { a.dangling = true; return a }
	cases := []corpusCase{
		{dir: "podinfo-chart", helm: true, want: []corpusAutoscaler{
			hpa("rel-podinfo", "demo", "autoscaling/v2", "Deployment/rel-podinfo", 1, 5, false, "cpu:99%")}},
		{dir: "podinfo-kustomize", renderRoot: ".", want: []corpusAutoscaler{
			hpa("podinfo", "", "autoscaling/v2", "Deployment/podinfo", 2, 4, false, "cpu:99%")}},
		{dir: "podinfo-deploy-production", renderRoot: "overlays/production", want: []corpusAutoscaler{
			hpa("backend", "production", "autoscaling/v2", "Deployment/backend", 1, 2, false, "cpu:99%"),
			hpa("database-replica", "production", "autoscaling/v2", "Deployment/database-replica", 2, 3, false, "cpu:99%"),
			hpa("frontend", "production", "autoscaling/v2", "Deployment/frontend", 2, 4, false, "cpu:99%")}},
		// min is the floor the inventory shows: an HPA's minReplicas, a
		// ScaledObject's minReplicaCount as README gives it (KEDA's own
		// floor; its HPA's is max(1, it), checked in run).
		{dir: "ingress-nginx-keda", helm: true, want: []corpusAutoscaler{
			so("rel-ingress-nginx-controller", "demo", "Deployment/rel-ingress-nginx-controller", 2, 20, true, "prometheus")}},
		{dir: "otel-collector", helm: true, want: []corpusAutoscaler{
			hpa("rel-opentelemetry-collector", "demo", "autoscaling/v2", "Deployment/rel-opentelemetry-collector", 1, 10, true,
				"memory:70%", "cpu:80%", "Pods:otelcol_k8s_collector_scrape_duration_seconds",
				"Object:otelcol_k8s_collector_scrape_duration_seconds", "External:otelcol_k8s_collector_scrape_duration_seconds")}},
		{dir: "coredns-chart", helm: true, want: []corpusAutoscaler{
			hpa("rel-coredns", "demo", "autoscaling/v2", "Deployment/rel-coredns", 2, 10, false, "memory:60%", "cpu:60%")}},
		{dir: "eks-workshop-hpa", renderRoot: "modules/autoscaling/workloads/hpa", want: []corpusAutoscaler{
			hpa("ui", "ui", "autoscaling/v1", "Deployment/ui", 1, 4, false, "cpu:80%")}},
		{dir: "eks-workshop-keda", renderRoot: ".", want: []corpusAutoscaler{
			dangling(so("ui-hpa", "ui", "Deployment/ui", 1, 10, false, "aws-cloudwatch"))}},
		// README says "min None": minReplicaCount is unset, which KEDA
		// reads as 0, so the consumer scales to zero when idle (issue 33).
		// The generated HPA's floor is still 1. This expectation said 1
		// while the inventory showed the HPA's floor for a ScaledObject.
		{dir: "keda-sample-rabbitmq-plain", want: []corpusAutoscaler{
			so("rabbitmq-consumer", "default", "Deployment/rabbitmq-consumer", 0, 30, false, "rabbitmq")}},
		{dir: "prometheus-json-exporter", helm: true, want: []corpusAutoscaler{
			hpa("rel-prometheus-json-exporter", "demo", "autoscaling/v2beta1", "Deployment/rel-prometheus-json-exporter", 2, 5, false, "cpu:80%", "memory:80%")}},
		{dir: "fluent-bit", helm: true, want: []corpusAutoscaler{
			hpa("rel-fluent-bit", "demo", "autoscaling/v2", "Deployment/rel-fluent-bit", 2, 8, true, "cpu:75%", "Pods:packets-per-second")}},
		{dir: "bitnami-nginx", helm: true, want: []corpusAutoscaler{
			hpa("rel-nginx", "demo", "autoscaling/v2", "Deployment/rel-nginx", 2, 10, false, "memory:70%", "cpu:60%")}},
	}
	entries, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.dir] = true
	}
	for _, e := range entries {
		if e.IsDir() && !covered[e.Name()] {
			t.Errorf("corpus case %s has no expectations here; add it from corpus/README.md", e.Name())
		}
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) { c.run(t, corpus) })
	}
}
