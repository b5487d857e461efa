package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
)

const rootTestHPA = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: web\n  minReplicas: 1\n  maxReplicas: 4\n"

// capreport overlays/prod inside a git checkout renders the overlay with
// its ../../base, as kustomize build does: the checkout's top is the root,
// and every path is relative to it.
func TestOverlayInsideCheckout(t *testing.T) {
	top := t.TempDir()
	testutil.WriteTree(t, top, map[string]string{
		".git/config":                      "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:example/deploy.git\n",
		"base/kustomization.yaml":          "resources:\n  - hpa.yaml\n",
		"base/hpa.yaml":                    rootTestHPA,
		"overlays/prod/kustomization.yaml": "namespace: prod\nresources:\n  - ../../base\n",
		"overlays/dev/kustomization.yaml":  "namespace: dev\nresources:\n  - ../../base\n",
	})
	var out, errOut bytes.Buffer
	code := run([]string{"list", filepath.Join(top, "overlays", "prod"), "--format", "json"}, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut})
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var got contract.Inventory
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Autoscalers) != 1 || got.Autoscalers[0].ID != "prod/HorizontalPodAutoscaler/web" {
		t.Fatalf("autoscalers %v, want only prod/HorizontalPodAutoscaler/web (dev is outside PATH)", ids(got.Autoscalers))
	}
	if src := got.Autoscalers[0].Source; src.File != "base/hpa.yaml" || src.Source != "overlays/prod" {
		t.Errorf("source %+v, want base/hpa.yaml from overlays/prod (paths relative to the checkout's top)", src)
	}
}

// Without a checkout PATH is the root, and an overlay's bases beside it
// are outside: a partial render that names the entry, never a clean zero;
// --root gives the reader the bases.
func TestOverlayRootFlag(t *testing.T) {
	top := t.TempDir()
	testutil.WriteTree(t, top, map[string]string{
		"base/kustomization.yaml":          "resources:\n  - hpa.yaml\n",
		"base/hpa.yaml":                    rootTestHPA,
		"overlays/prod/kustomization.yaml": "namespace: prod\nresources:\n  - ../../base\n",
	})
	var out, errOut bytes.Buffer
	run([]string{"list", filepath.Join(top, "overlays", "prod")}, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut})
	if !strings.Contains(out.String(), `partial-render: kustomization.yaml: resources entry "../../base" leaves the repository root "prod" (pass --root`) {
		t.Errorf("no partial-render finding naming the entry:\n%s", out.String())
	}
	out.Reset()
	code := run([]string{"list", filepath.Join(top, "overlays", "prod"), "--root", top}, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut})
	if code != cmdutil.ExitOK || !strings.Contains(out.String(), "prod/HorizontalPodAutoscaler/web") {
		t.Errorf("with --root: exit %d:\n%s%s", code, out.String(), errOut.String())
	}
	if code := run([]string{"list", top, "--root", filepath.Join(top, "nope")}, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut}); code != cmdutil.ExitError {
		t.Errorf("--root to a missing directory: exit %d, want %d", code, cmdutil.ExitError)
	}
}

// capreport list exits 1 when a source failed to render.
func TestListExitsOnFailedSource(t *testing.T) {
	top := t.TempDir()
	testutil.WriteTree(t, top, map[string]string{
		"c/Chart.yaml":       "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"c/templates/x.yaml": "{{ fail \"broken\" }}\n",
		"ok/hpa.yaml":        rootTestHPA,
	})
	var out, errOut bytes.Buffer
	if code := run([]string{"list", top}, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut}); code != cmdutil.ExitFail {
		t.Errorf("exit %d, want %d; stderr %s", code, cmdutil.ExitFail, errOut.String())
	}
	if !strings.Contains(errOut.String(), "1 source(s) failed to render") {
		t.Errorf("stderr %q does not say a source failed", errOut.String())
	}
	if !strings.Contains(out.String(), "default/HorizontalPodAutoscaler/web") {
		t.Errorf("the good source is missing from the listing:\n%s", out.String())
	}
}
