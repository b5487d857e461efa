package render

import (
	"fmt"
	"strings"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/gitops"
)

// Fixtures for the GitOps checks: Flux and Argo CD objects that deliver a
// chart or a directory of this repository.

const testRepoURL = "https://example.com/org/deploy.git"

func withRepoURL(o *Options) { o.RepoURLs = []string{testRepoURL} }

func fluxKS(name, path, extra string) string {
	return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: " + name +
		"\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: " + path +
		"\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n" + extra
}

func fluxHR(name, ns, chartSpec, extra string) string {
	return "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: " + name +
		"\n  namespace: " + ns + "\nspec:\n  interval: 10m\n  chart:\n    spec:\n" + chartSpec + extra
}

const gitChartSpec = "      chart: ./charts/web\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n        namespace: flux-system\n"

func argoApp(name, path string) string {
	return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: " + name +
		"\n  namespace: argocd\nspec:\n  project: default\n  destination:\n    namespace: apps\n    server: https://kubernetes.default.svc\n" +
		"  source:\n    repoURL: " + testRepoURL + "\n    targetRevision: HEAD\n    path: " + path + "\n"
}

const webChart = "apiVersion: v2\nname: web\nversion: 1.0.0\n"
const webHPA = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: web\n  minReplicas: {{ .Values.min | default 1 }}\n  maxReplicas: 10\n"

func hpaDoc(name, max string) string {
	return "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: " + name +
		"\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: " + name + "\n  minReplicas: 1\n  maxReplicas: " + max + "\n"
}

// appChain writes n Argo CD Applications, each in its own directory and
// delivering the next one's.
func appChain(n int) map[string]string {
	files := map[string]string{}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("d%d/app.yaml", i)] = argoApp(fmt.Sprintf("a%d", i), fmt.Sprintf("d%d", i+1))
	}
	files[fmt.Sprintf("d%d/cm.yaml", n)] = checksCM
	return files
}

func gitopsCheckCases() []renderCheckCase {
	schema := func(ref string) string {
		return `{"type": "object", "$defs": {"n": {"type": "integer"}}, "properties": {"min": {"$ref": "` + ref + `"}}}`
	}
	utf16 := func(s string) string {
		b := []byte{0xFF, 0xFE}
		for _, r := range s {
			b = append(b, byte(r), 0)
		}
		return string(b)
	}
	return []renderCheckCase{
		{
			// Issue 11: UTF-16 and CR-only files were skipped without a word.
			name: "yaml-encoding", check: check.YAMLEncoding, severity: "info",
			trigger: checkInput{files: map[string]string{"a.yaml": utf16(hpaDoc("web", "4")), "b.yaml": strings.ReplaceAll(hpaDoc("cr", "4"), "\n", "\r")}},
			quiet:   checkInput{files: map[string]string{"a.yaml": hpaDoc("web", "4"), "b.yaml": strings.ReplaceAll(hpaDoc("cr", "4"), "\n", "\r\n")}},
			source:  "a.yaml", file: "a.yaml", text: "UTF-16",
		},
		{
			// Issue 11: duplicate keys were taken last-wins without a word.
			name: "yaml-duplicate-key", check: check.YAMLDuplicateKey, severity: "warning",
			trigger: checkInput{files: map[string]string{"a.yaml": "---\n" + strings.Replace(hpaDoc("web", "4"), "  minReplicas: 1\n", "  minReplicas: 1\n  minReplicas: 2\n", 1)}},
			quiet:   checkInput{files: map[string]string{"a.yaml": "---\n" + hpaDoc("web", "4")}},
			source:  "a.yaml", file: "a.yaml", line: 2, text: `"minReplicas" (lines 11 and 12)`,
		},
		{
			name: "schema-ref-outside", check: check.SchemaRef, severity: "warning",
			trigger: checkInput{files: map[string]string{
				"charts/web/Chart.yaml": webChart, "charts/web/templates/h.yml": webHPA, "charts/web/values.schema.json": schema("https://example.com/n.json"),
			}},
			quiet: checkInput{files: map[string]string{
				"charts/web/Chart.yaml": webChart, "charts/web/templates/h.yml": webHPA, "charts/web/values.schema.json": schema("#/$defs/n"),
			}},
			source: "charts/web", file: "charts/web/values.schema.json", text: `"https://example.com/n.json"`,
		},
		{
			name: "gitops-not-followed", check: check.GitOpsNotFollowed, severity: "warning",
			trigger: checkInput{files: map[string]string{
				"apps/web.yaml": fluxHR("web", "apps", "      chart: web\n      version: 1.x\n      sourceRef:\n        kind: HelmRepository\n        name: charts\n", ""),
			}},
			quiet: checkInput{files: map[string]string{
				"apps/web.yaml":              fluxHR("web", "apps", gitChartSpec, ""),
				"charts/web/Chart.yaml":      webChart,
				"charts/web/templates/h.yml": webHPA,
			}},
			source: "apps/web.yaml", file: "apps/web.yaml", line: 1, text: `chart "web" version "1.x" comes from HelmRepository apps/charts`,
		},
		{
			name: "gitops-reference-missing", check: check.GitOpsReference, severity: "warning",
			trigger: checkInput{files: map[string]string{
				"apps/web.yaml":              fluxHR("web", "apps", gitChartSpec, "  valuesFrom:\n    - kind: ConfigMap\n      name: web-values\n"),
				"charts/web/Chart.yaml":      webChart,
				"charts/web/templates/h.yml": webHPA,
			}},
			quiet: checkInput{files: map[string]string{
				"apps/web.yaml": fluxHR("web", "apps", gitChartSpec, "  valuesFrom:\n    - kind: ConfigMap\n      name: web-values\n") +
					"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-values\n  namespace: apps\ndata:\n  values.yaml: |\n    min: 2\n",
				"charts/web/Chart.yaml":      webChart,
				"charts/web/templates/h.yml": webHPA,
			}},
			source: "apps/web.yaml", file: "apps/web.yaml", line: 1, text: "valuesFrom ConfigMap apps/web-values is not among the rendered objects",
		},
		{
			// A SOPS-encrypted Secret beside the manifests (bykaj/home-ops):
			// its ciphertext must not be substituted for the values Flux
			// decrypts in the cluster.
			name: "gitops-reference-missing (SOPS)", check: check.GitOpsReference, severity: "warning",
			trigger: checkInput{files: map[string]string{
				"clusters/apps.yaml": fluxKS("apps", "./apps", "  postBuild:\n    substituteFrom:\n      - kind: Secret\n        name: vars\n"),
				"clusters/vars.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: vars\n  namespace: flux-system\nstringData:\n    max: ENC[AES256_GCM,data:Ng==,iv:x,tag:y,type:str]\nsops:\n    version: 3.9.0\n",
				"apps/hpa.yaml":      hpaDoc("web", "${max:=4}"),
			}},
			quiet: checkInput{files: map[string]string{
				"clusters/apps.yaml": fluxKS("apps", "./apps", "  postBuild:\n    substituteFrom:\n      - kind: Secret\n        name: vars\n"),
				"clusters/vars.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: vars\n  namespace: flux-system\nstringData:\n    max: \"8\"\n",
				"apps/hpa.yaml":      hpaDoc("web", "${max:=4}"),
			}},
			source: "clusters/apps.yaml", file: "clusters/apps.yaml", line: 1, text: "postBuild.substituteFrom Secret flux-system/vars is SOPS-encrypted",
		},
		{
			name: "gitops-substitution", check: check.GitOpsSubstitution, severity: "warning",
			trigger: checkInput{files: map[string]string{
				"clusters/apps.yaml": fluxKS("apps", "./apps", "  postBuild:\n    substitute:\n      max: \"8\"\n"),
				"apps/hpa.yaml":      hpaDoc("web", "${max_replicas}"),
			}},
			quiet: checkInput{files: map[string]string{
				"clusters/apps.yaml": fluxKS("apps", "./apps", "  postBuild:\n    substitute:\n      max_replicas: \"8\"\n"),
				"apps/hpa.yaml":      hpaDoc("web", "${max_replicas}"),
			}},
			source: "clusters/apps.yaml", file: "clusters/apps.yaml", line: 1, text: "${max_replicas}",
		},
		{
			name: "gitops-cycle", check: check.GitOpsCycle, severity: "warning",
			trigger: checkInput{opts: withRepoURL, files: map[string]string{
				"a/app.yaml": argoApp("a", "b"),
				"b/app.yaml": argoApp("b", "a"),
			}},
			quiet: checkInput{opts: withRepoURL, files: map[string]string{
				"a/app.yaml": argoApp("a", "b"),
				"b/cm.yaml":  checksCM,
			}},
			source: "a@Application/argocd/b", file: "a/app.yaml", line: 1, text: "delivery cycle: Application argocd/a → Application argocd/b → Application argocd/a",
		},
		{
			name: "gitops-limit", check: check.GitOpsLimit, severity: "error",
			trigger: checkInput{opts: withRepoURL, files: appChain(gitops.MaxDepth + 2)},
			quiet:   checkInput{opts: withRepoURL, files: appChain(3)},
			source:  fmt.Sprintf("d%d@Application/argocd/a%d", gitops.MaxDepth, gitops.MaxDepth-1), text: fmt.Sprintf("deeper than %d", gitops.MaxDepth),
		},
		{
			name: "duplicate-delivery", check: check.DuplicateDelivery, severity: "warning",
			trigger: checkInput{files: map[string]string{
				"clusters/a.yaml": fluxKS("a", "./apps", "  targetNamespace: web\n"),
				"clusters/b.yaml": fluxKS("b", "./apps", "  targetNamespace: web\n"),
				"apps/hpa.yaml":   hpaDoc("web", "5"),
			}},
			quiet: checkInput{files: map[string]string{
				"clusters/a.yaml": fluxKS("a", "./apps", "  targetNamespace: web\n"),
				"clusters/b.yaml": fluxKS("b", "./apps", "  targetNamespace: canary\n"),
				"apps/hpa.yaml":   hpaDoc("web", "5"),
			}},
			source: "apps@Kustomization/flux-system/b", file: "apps/hpa.yaml", line: 1,
			text: strings.Join([]string{"clusters/a.yaml Kustomization flux-system/a → apps/hpa.yaml", "clusters/b.yaml Kustomization flux-system/b → apps/hpa.yaml"}, "; and "),
		},
	}
}
