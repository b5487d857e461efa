package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render"
)

// End to end over real GitOps repositories (../shared/corpus-gitops, whose
// README gives the expected autoscalers and chains) and capreport's own
// fixtures (testdata/gitops, each with a README of what it must yield):
// capreport list, run as a user runs it, from the entry point and from the
// repository root.

// wantAutoscaler is one expected autoscaler: id, target, bounds, metrics
// ("cpu 80%"), and its delivery chain.
type wantAutoscaler struct {
	id, target string
	min, max   int32
	metrics    string
	chain      string
}

type gitopsCase struct {
	name       string
	root, path string // path relative to root
	urls       []string
	sources    []string // --source NAME=PATH, PATH relative to root
	flags      []string // more flags
	want       []wantAutoscaler
	findings   []string // "check: substring" that must be among the findings
	absent     []string // ids that must not be reported
	withheld   []string // ids listed as skipped because a failed build withholds them
	failing    bool     // a source fails: list exits 1 (else it must exit 0)
}

func (c gitopsCase) run(t *testing.T) {
	args := []string{"list", filepath.Join(c.root, c.path), "--root", c.root, "--format", "json"}
	for _, u := range c.urls {
		args = append(args, "--repo-url", u)
	}
	for _, s := range c.sources {
		name, dir, _ := strings.Cut(s, "=")
		args = append(args, "--source", name+"="+filepath.Join(c.root, dir))
	}
	args = append(args, c.flags...)
	var out, errOut bytes.Buffer
	code := run(args, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut})
	if code == cmdutil.ExitError {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if (code == cmdutil.ExitFail) != c.failing {
		t.Errorf("exit %d, want a failing source %v: %s", code, c.failing, errOut.String())
	}
	var got contract.Inventory
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	byID := map[string]contract.InventoryAutoscaler{}
	for _, a := range got.Autoscalers {
		byID[a.ID] = a
	}
	for _, w := range c.want {
		a, ok := byID[w.id]
		if !ok {
			t.Errorf("autoscaler %s missing; have %v", w.id, ids(got.Autoscalers))
			continue
		}
		target := a.Target.Kind + "/" + a.Target.Name
		var ms []string
		for _, m := range a.Metrics {
			ms = append(ms, m.Name+" "+m.Target)
		}
		chain := render.Origin{File: a.Source.File, Via: a.Source.Via, Chain: a.Source.Chain}.ChainString()
		if gotRow := fmt.Sprintf("%s %d..%d %s | %s", target, a.MinReplicas, a.MaxReplicas, strings.Join(ms, ", "), chain); gotRow !=
			fmt.Sprintf("%s %d..%d %s | %s", w.target, w.min, w.max, w.metrics, w.chain) {
			t.Errorf("%s:\n got  %s\n want %s %d..%d %s | %s", w.id, gotRow, w.target, w.min, w.max, w.metrics, w.chain)
		}
	}
	if len(got.Autoscalers) != len(c.want) {
		t.Errorf("%d autoscalers, want %d: %v", len(got.Autoscalers), len(c.want), ids(got.Autoscalers))
	}
	var withheld []string
	for _, sk := range got.Skipped {
		if strings.HasPrefix(sk.Reason, "withheld: ") {
			withheld = append(withheld, sk.Namespace+"/"+sk.Kind+"/"+sk.Name)
		}
	}
	if fmt.Sprint(withheld) != fmt.Sprint(c.withheld) {
		t.Errorf("withheld %v, want %v", withheld, c.withheld)
	}
	for _, id := range c.absent {
		if _, ok := byID[id]; ok {
			t.Errorf("%s must not be reported", id)
		}
	}
	var all []string
	for _, f := range got.Findings {
		all = append(all, f.Check+": "+f.Message)
	}
	for _, want := range c.findings {
		check, text, _ := strings.Cut(want, ": ")
		found := false
		for _, f := range got.Findings {
			found = found || (f.Check == check && strings.Contains(f.Message, text))
		}
		if !found {
			t.Errorf("no finding %q among:\n  %s", want, strings.Join(all, "\n  "))
		}
	}
}

func ids(as []contract.InventoryAutoscaler) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.ID)
	}
	sort.Strings(out)
	return out
}

var corpusGitOps = filepath.Join("..", "..", "..", "shared", "corpus-gitops")
var fixtures = filepath.Join("..", "..", "testdata", "gitops")

func istioCase(path string) gitopsCase {
	root := filepath.Join(corpusGitOps, "gitops-istio")
	return gitopsCase{
		name: "gitops-istio from " + path, root: root, path: path,
		want: []wantAutoscaler{
			{"prod/HorizontalPodAutoscaler/backend", "Deployment/frontend", 1, 4, "cpu 99%",
				"clusters/my-cluster/apps.yaml Kustomization flux-system/apps → apps/backend/kustomization.yaml → apps/backend/hpa.yaml"},
			{"prod/HorizontalPodAutoscaler/frontend", "Deployment/frontend", 1, 4, "cpu 99%",
				"clusters/my-cluster/apps.yaml Kustomization flux-system/apps → apps/frontend/kustomization.yaml → apps/frontend/hpa.yaml"},
		},
		findings: []string{
			"gitops-not-followed: HelmRelease istio-system/istio-base: not followed: chart \"base\"",
			"gitops-not-followed: HelmRelease istio-system/istiod: not followed: chart \"istiod\"",
			"gitops-not-followed: HelmRelease istio-system/istio-gateway: not followed: chart \"gateway\"",
			"gitops-not-followed: HelmRelease istio-system/flagger: not followed: chart \"flagger\"",
		},
	}
}

func adpCase(path string) gitopsCase {
	chain := func(env string) string {
		return "examples/basic-appset/my-app-set.yaml ApplicationSet argocd/my-app-set → examples/basic-appset/my-app-set.yaml Application argocd/my-app-set-" + env +
			" → examples/helm/charts/myApp → examples/helm/charts/myApp/templates/hpa.yaml"
	}
	return gitopsCase{
		name: "adp-basic-appset from " + path, root: filepath.Join(corpusGitOps, "adp-basic-appset"), path: path,
		urls: []string{"https://github.com/dag-andersen/argocd-diff-preview"},
		want: []wantAutoscaler{{"default/HorizontalPodAutoscaler/super-app-name", "Deployment/super-app-name", 1, 100, "cpu 80%", chain("dev")}},
		findings: []string{
			"duplicate-delivery: HorizontalPodAutoscaler default/super-app-name is delivered more than once",
			"duplicate-delivery: " + chain("dev") + "; and " + chain("prod"),
			"duplicate-delivery: " + chain("dev") + "; and " + chain("staging"),
		},
	}
}

func fluxHelmExampleCase(path string) gitopsCase {
	return gitopsCase{
		name: "flux2-kustomize-helm from " + path, root: filepath.Join(corpusGitOps, "flux2-kustomize-helm"), path: path,
		findings: []string{
			"gitops-not-followed: HelmRelease podinfo/podinfo: not followed: chart \"podinfo\" version \">=1.0.0\" comes from HelmRepository podinfo/podinfo at https://stefanprodan.github.io/podinfo",
			"gitops-not-followed: HelmRelease cert-manager/cert-manager: not followed: spec.chartRef is OCIRepository",
		},
	}
}

func TestGitOpsCorpus(t *testing.T) {
	testutil.SkipIfShort(t)
	cases := []gitopsCase{
		istioCase("clusters/my-cluster"), istioCase("."),
		fluxHelmExampleCase("clusters/production"), fluxHelmExampleCase("."),
		adpCase("examples/basic-appset"), adpCase("."),
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

func TestGitOpsFixtures(t *testing.T) {
	flux := func(via, file string, links ...string) string {
		return strings.Join(append(links, via, file), " → ")
	}
	apps := "clusters/prod/apps.yaml Kustomization flux-system/apps"
	argoURL := "https://github.com/example/argo-features.git"
	root := "argocd/root.yaml Application argocd/root"
	chart := "charts/api → charts/api/templates/hpa.yaml"
	cases := []gitopsCase{
		{
			name: "helm-operator-get-started", root: filepath.Join(fixtures, "helm-operator-get-started"), path: ".",
			urls: []string{"git@github.com:fluxcd/helm-operator-get-started"},
			want: []wantAutoscaler{{"stg/HorizontalPodAutoscaler/podinfo-rc", "Deployment/podinfo-rc", 2, 10, "cpu 50%, memory 256Mi",
				"releases/stg/podinfo.yaml HelmRelease stg/podinfo-rc → charts/podinfo → charts/podinfo/templates/hpa.yaml"}},
			findings: []string{"gitops-not-followed: HelmRelease adm/sealed-secrets: not followed: chart \"sealed-secrets\" version \"1.6.1\""},
		},
		{
			name: "flux-features", root: filepath.Join(fixtures, "flux-features"), path: "clusters/prod",
			want: []wantAutoscaler{
				{"prod/HorizontalPodAutoscaler/web", "Deployment/web", 3, 12, "cpu 70%", flux("apps/base/web/kustomization.yaml", "apps/base/web/hpa.yaml", apps)},
				{"prod/HorizontalPodAutoscaler/api", "Deployment/api", 2, 20, "cpu 75%", apps + " → apps/prod/api.yaml HelmRelease prod/api → " + chart},
				{"jobs/HorizontalPodAutoscaler/jobs-worker", "Deployment/jobs-worker", 1, 6, "cpu 75%", apps + " → apps/prod/worker.yaml HelmRelease prod/worker → " + chart},
				{"jobs/HorizontalPodAutoscaler/queue", "Deployment/queue", 1, 8, "cpu 60%", "clusters/prod/jobs.yaml Kustomization flux-system/jobs → apps/jobs/queue.yaml"},
				{"prod/HorizontalPodAutoscaler/broken", "Deployment/broken", 1, 3, "cpu 75%", apps + " → apps/prod/broken.yaml HelmRelease prod/broken → " + chart},
			},
			findings: []string{
				"gitops-not-followed: HelmRelease prod/redis: not followed: chart \"redis\" version \"18.x\" comes from HelmRepository prod/bitnami at https://charts.bitnami.com/bitnami",
				"gitops-not-followed: Kustomization flux-system/other: not followed: GitRepository flux-system/platform is https://github.com/example/platform, another repository",
				"gitops-reference-missing: HelmRelease prod/broken: valuesFrom ConfigMap prod/not-in-this-repository is not among the rendered objects",
			},
			absent: []string{"default/HorizontalPodAutoscaler/web", "default/HorizontalPodAutoscaler/queue"},
		},
		{
			name: "argo-features", root: filepath.Join(fixtures, "argo-features"), path: ".", urls: []string{argoURL},
			want: []wantAutoscaler{
				{"apps/HorizontalPodAutoscaler/files", "Deployment/files", 2, 11, "cpu 75%", root + " → argocd/apps/files.yaml Application argocd/files → " + chart},
				{"apps/HorizontalPodAutoscaler/values", "Deployment/values", 2, 12, "cpu 75%", root + " → argocd/apps/values.yaml Application argocd/values → " + chart},
				{"apps/HorizontalPodAutoscaler/object", "Deployment/object", 2, 13, "cpu 75%", root + " → argocd/apps/object.yaml Application argocd/object → " + chart},
				{"apps/HorizontalPodAutoscaler/params", "Deployment/params", 4, 14, "cpu 75%", root + " → argocd/apps/params.yaml Application argocd/params → " + chart},
				{"team/HorizontalPodAutoscaler/renamed", "Deployment/renamed", 1, 3, "cpu 75%", root + " → argocd/apps/release.yaml Application argocd/release → " + chart},
				{"kust/HorizontalPodAutoscaler/k-web", "Deployment/k-web", 1, 5, "cpu 60%", root + " → argocd/apps/kust.yaml Application argocd/kust → kustomize/base/kustomization.yaml → kustomize/base/web.yaml"},
				{"dirns/HorizontalPodAutoscaler/nested", "Deployment/nested", 1, 7, "cpu 60%", root + " → argocd/apps/dir.yaml Application argocd/dir → manifests/nested/nested.yaml"},
				{"dev/HorizontalPodAutoscaler/env-dev", "Deployment/env-dev", 1, 3, "cpu 75%", root + " → argocd/apps/appsets.yaml ApplicationSet argocd/envs → argocd/apps/appsets.yaml Application argocd/env-dev → " + chart},
				{"prod/HorizontalPodAutoscaler/env-prod", "Deployment/env-prod", 1, 3, "cpu 75%", root + " → argocd/apps/appsets.yaml ApplicationSet argocd/envs → argocd/apps/appsets.yaml Application argocd/env-prod → " + chart},
				{"dev/HorizontalPodAutoscaler/cfg-dev", "Deployment/cfg-dev", 1, 4, "cpu 75%", root + " → argocd/apps/appsets.yaml ApplicationSet argocd/files → argocd/apps/appsets.yaml Application argocd/cfg-dev → " + chart},
				{"prod/HorizontalPodAutoscaler/cfg-prod", "Deployment/cfg-prod", 1, 9, "cpu 75%", root + " → argocd/apps/appsets.yaml ApplicationSet argocd/files → argocd/apps/appsets.yaml Application argocd/cfg-prod → " + chart},
				{"dev/HorizontalPodAutoscaler/merge-dev", "Deployment/merge-dev", 1, 5, "cpu 75%", root + " → argocd/apps/appsets.yaml ApplicationSet argocd/merged → argocd/apps/appsets.yaml Application argocd/merge-dev → " + chart},
				{"prod/HorizontalPodAutoscaler/merge-prod", "Deployment/merge-prod", 1, 15, "cpu 75%", root + " → argocd/apps/appsets.yaml ApplicationSet argocd/merged → argocd/apps/appsets.yaml Application argocd/merge-prod → " + chart},
				// Excluded from the directory source, so no GitOps object
				// delivers it: rendered on its own, as discovery always did.
				{"default/HorizontalPodAutoscaler/skipped", "Deployment/skipped", 1, 5, "cpu 60%", ""},
			},
			findings: []string{
				"gitops-not-followed: Application argocd/remote-chart: not followed: chart \"redis\" version \"18.6.1\" comes from the Helm repository https://charts.bitnami.com/bitnami",
				"gitops-not-followed: Application argocd/elsewhere: not followed: its source https://github.com/example/platform.git is another repository",
				"gitops-not-followed: ApplicationSet argocd/clusters",
			},
			absent: []string{"dirns/HorizontalPodAutoscaler/skipped"},
		},
	}
	cases = append(cases, fluxRulesCase("clusters/prod"), fluxRulesCase("."))
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// fluxRulesCase is testdata/gitops/flux-rules from path: kustomize-
// controller's build rules (its README gives each figure's derivation).
func fluxRulesCase(path string) gitopsCase {
	c := gitopsCase{
		name: "flux-rules from " + path, root: filepath.Join(fixtures, "flux-rules"), path: path, failing: true,
		want: []wantAutoscaler{
			// Followed at ./apps/web/prod/eu: the root's postBuild fills the path.
			{"prod/HorizontalPodAutoscaler/web", "Deployment/web", 2, 8, "cpu 70%",
				"clusters/prod/apps.yaml Kustomization flux-system/apps → apps/web/prod/eu/hpa.yaml"},
			// A file outside the kustomization's folder: load restrictions none.
			{"prod/HorizontalPodAutoscaler/api", "Deployment/api", 2, 12, "cpu 70%",
				"clusters/prod/shared.yaml Kustomization flux-system/shared → apps/shared/prod/kustomization.yaml → common/hpa-api.yaml"},
		},
		findings: []string{"render-failed: generating the kustomization Flux builds for apps/broken: lstat apps/broken/deleted-in-this-commit.yaml"},
		absent:   []string{"prod/HorizontalPodAutoscaler/queue"},
	}
	if path == "." {
		// Found by discovery beneath the failed Kustomization: withheld, not delivered.
		c.withheld = []string{"prod/HorizontalPodAutoscaler/queue"}
		c.findings = append(c.findings, "gitops-withheld: Kustomization flux-system/broken: its build failed, so nothing beneath it reaches the cluster; withheld: HorizontalPodAutoscaler prod/queue (apps/broken/queue/hpa.yaml:1)")
		// No GitOps object reads it: rendered on its own, as discovery always does.
		c.want = append(c.want, wantAutoscaler{"staging/HorizontalPodAutoscaler/web", "Deployment/web", 2, 3, "cpu 70%", ""})
	}
	return c
}

// A repository whose only Kustomization fails to build: Flux applies
// nothing of it, so its HPA is withheld, not delivered, and both list and
// the ledger exit 1 (testdata/gitops/flux-failed/README.md).
func TestGitOpsFailedBuildWithholds(t *testing.T) {
	root := filepath.Join(fixtures, "flux-failed")
	gitopsCase{name: "list", root: root, path: ".", failing: true,
		withheld: []string{"prod/HorizontalPodAutoscaler/web"},
		findings: []string{"gitops-withheld: Kustomization flux-system/apps: its build failed, so nothing beneath it reaches the cluster; withheld: HorizontalPodAutoscaler prod/web (apps/web/hpa.yaml:1)"},
		absent:   []string{"prod/HorizontalPodAutoscaler/web"},
	}.run(t)
	var out, errOut bytes.Buffer
	code := run([]string{root, "--root", root}, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut})
	if code != cmdutil.ExitFail {
		t.Errorf("ledger exit %d, want %d: %s", code, cmdutil.ExitFail, errOut.String())
	}
	for _, want := range []string{"1 source beneath a failed build is withheld", "gitops-withheld", "withheld  apps "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("ledger lacks %q:\n%s", want, out.String())
		}
	}
}

// An Argo CD repoURL spelled git@host/org/repo (no colon) is this
// repository when a remote, --repo-url or the config names it in any
// spelling, and explain says why, with both normal forms.
func TestExplainSaysWhichRepository(t *testing.T) {
	root := filepath.Join(fixtures, "argo-features")
	var out, errOut bytes.Buffer
	code := run([]string{"explain", "apps/HorizontalPodAutoscaler/files", root, "--root", root, "--repo-url", "git@github.com/example/argo-features"},
		&cmdutil.IOStreams{Out: &out, ErrOut: &errOut})
	if code == cmdutil.ExitError {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	want := "repository: https://github.com/example/argo-features.git (Argo CD normal form https://github.com/example/argo-features, identity github.com/example/argo-features) is this repository: " +
		"git@github.com/example/argo-features (normal form git@github.com/example/argo-features) has the same identity"
	if !strings.Contains(out.String(), want) {
		t.Errorf("explain lacks %q:\n%s", want, out.String())
	}
}

// Sources of another repository, read from a clone beside this one
// (testdata/gitops/sources: fleet/ reads platform/), as flux-local's
// --sources: without --source they are named as not followed.
func TestGitOpsSourceMaps(t *testing.T) {
	root := filepath.Join(fixtures, "sources")
	chart := "platform/charts/api → platform/charts/api/templates/hpa.yaml"
	mapped := gitopsCase{name: "mapped", root: root, path: "fleet",
		sources: []string{"GitRepository/flux-system/platform=platform", "https://github.com/example/platform=platform"},
		want: []wantAutoscaler{
			{"jobs/HorizontalPodAutoscaler/worker", "Deployment/worker", 2, 12, "cpu 70%",
				"fleet/clusters/prod/platform.yaml Kustomization flux-system/platform-apps → platform GitRepository flux-system/platform → platform/apps/kustomization.yaml → platform/apps/hpa.yaml"},
			{"prod/HorizontalPodAutoscaler/api", "Deployment/api", 1, 9, "cpu 75%",
				"fleet/clusters/prod/platform.yaml HelmRelease prod/api → platform GitRepository flux-system/platform → " + chart},
			// git@github.com:example/platform.git is the mapped https URL's repository.
			{"edge/HorizontalPodAutoscaler/api-edge", "Deployment/api-edge", 1, 5, "cpu 75%",
				"fleet/argocd/api.yaml Application argocd/api-edge → platform Repository git@github.com:example/platform.git → " + chart},
		},
	}
	t.Run("mapped", mapped.run)
	unmapped := gitopsCase{name: "unmapped", root: root, path: "fleet",
		findings: []string{
			"gitops-not-followed: Kustomization flux-system/platform-apps: not followed: GitRepository flux-system/platform is https://github.com/example/platform, another repository",
			"gitops-not-followed: HelmRelease prod/api: not followed: GitRepository flux-system/platform is https://github.com/example/platform, another repository",
			"gitops-not-followed: Application argocd/api-edge: not followed: its source git@github.com:example/platform.git is another repository",
			"gitops-not-followed: map it with --source git@github.com:example/platform.git=PATH",
		},
	}
	t.Run("unmapped", unmapped.run)
	// A mapped directory must be inside the root: capreport reads nothing outside it.
	var out, errOut bytes.Buffer
	outside := t.TempDir()
	code := run([]string{"list", filepath.Join(root, "fleet"), "--root", filepath.Join(root, "fleet"), "--source", "platform=" + outside}, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut})
	if code != cmdutil.ExitError || !strings.Contains(errOut.String(), "is outside the repository root") {
		t.Errorf("a --source outside the root: exit %d, %s", code, errOut.String())
	}
}

// A render finding of a delivered source names the GitOps object that
// delivers it, with its file and line, as plugin and Jsonnet Applications
// are named: here a chart whose dependency is not vendored.
func TestDeliveredFindingsNameTheirDelivery(t *testing.T) {
	root := t.TempDir()
	testutil.WriteTree(t, root, map[string]string{
		"argocd/web.yaml": "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: web\n  namespace: argocd\nspec:\n" +
			"  source:\n    repoURL: https://github.com/example/fleet\n    path: charts/web\n  destination:\n    namespace: web\n",
		"charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\ndependencies:\n  - name: redis\n    version: 18.6.1\n    repository: https://charts.bitnami.com/bitnami\n",
		"charts/web/templates/hpa.yaml": "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n" +
			"  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 1\n  maxReplicas: 4\n",
	})
	gitopsCase{name: "dependency", root: root, path: ".", urls: []string{"https://github.com/example/fleet"},
		want: []wantAutoscaler{{"web/HorizontalPodAutoscaler/web", "Deployment/web", 1, 4, "cpu 80%", // the v2 default
			"argocd/web.yaml Application argocd/web → charts/web → charts/web/templates/hpa.yaml"}},
		findings: []string{"helm-dependency-missing: (delivered by argocd/web.yaml:1 Application argocd/web)"},
	}.run(t)
}

// A child Kustomization beneath its parent's path whose build fails as the
// parent applies it: what it would deliver is withheld, though the plan
// read its coverage from a scan that could not see the failure.
func TestNestedFailedBuildWithholds(t *testing.T) {
	root := t.TempDir()
	ks := func(name, path string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: " + name + "\n  namespace: flux-system\nspec:\n" +
			"  path: " + path + "\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
	}
	testutil.WriteTree(t, root, map[string]string{
		"clusters/prod/apps.yaml":           ks("apps", "./apps"),
		"apps/kustomization.yaml":           "resources: [child/ks.yaml]\n",
		"apps/child/ks.yaml":                ks("child", "./apps/child/app"),
		"apps/child/app/kustomization.yaml": "resources: [hpa.yaml]\npatches:\n  - path: patch.yaml\n",
		"apps/child/app/patch.yaml":         "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: not-in-this-build\nspec:\n  replicas: 2\n",
		"apps/child/app/hpa.yaml": "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: child\n  namespace: prod\nspec:\n" +
			"  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: child}\n  minReplicas: 1\n  maxReplicas: 4\n",
	})
	gitopsCase{name: "nested", root: root, path: ".", failing: true,
		withheld: []string{"prod/HorizontalPodAutoscaler/child"},
		findings: []string{"gitops-withheld: Kustomization flux-system/child: its build failed"},
		absent:   []string{"prod/HorizontalPodAutoscaler/child"},
	}.run(t)
}
