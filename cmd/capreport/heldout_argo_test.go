package main

import (
	"path/filepath"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
)

// Held-out Argo CD fixtures (issue 29 point 7): copies of real public
// repositories that were not looked at while capreport's Argo CD support was
// written. testdata/gitops-heldout-argo/README.md gives each one's source,
// commit, licence, edits and how every expected figure was derived with helm
// v3.22.0 and kustomize v5.8.2, independently of capreport.

var heldoutArgo = filepath.Join("..", "..", "testdata", "gitops-heldout-argo")

func TestHeldoutArgo(t *testing.T) {
	testutil.SkipIfShort(t)

	// alphagov/govuk-helm-charts: argo-bootstrap (installed by Terraform)
	// renders Application app-config, whose chart renders one Application per
	// GOV.UK app; govuk-chat's installs charts/generic-govuk-app with inline
	// values. Every repoURL is git@github.com/alphagov/govuk-helm-charts
	// (ssh form without the colon).
	govukChat := "charts/argo-bootstrap/templates/argocd/apps-application.yaml Application default/app-config" +
		" → charts/app-config/templates/govuk-application.yaml Application cluster-services/govuk-chat" +
		" → charts/generic-govuk-app → charts/generic-govuk-app/templates/pod-autoscaler.yaml"
	remote := func(app, chart, version, repo string) string {
		return "gitops-not-followed: Application cluster-services/" + app + ": not followed: chart \"" + chart +
			"\" version \"" + version + "\" comes from the Helm repository " + repo
	}
	missing := func(app, path string) string {
		return "gitops-reference-missing: Application cluster-services/" + app + ": path \"" + path + "\" does not exist in this repository"
	}
	prom := "https://prometheus-community.github.io/helm-charts"
	govuk := gitopsCase{
		name: "govuk-helm-charts", root: filepath.Join(heldoutArgo, "govuk-helm-charts"), path: ".",
		urls: []string{"git@github.com/alphagov/govuk-helm-charts"},
		want: []wantAutoscaler{
			{"apps/HorizontalPodAutoscaler/govuk-chat", "Deployment/govuk-chat", 3, 15, "cpu 60%", govukChat},
			{"apps/HorizontalPodAutoscaler/govuk-chat-worker", "Deployment/govuk-chat-worker", 4, 10, "ai_sidekiq_queue_backlog 10", govukChat},
		},
		findings: []string{
			remote("cluster-autoscaler", "cluster-autoscaler", "9.59.0", "https://kubernetes.github.io/autoscaler"),
			remote("reloader", "reloader", "2.2.16", "https://stakater.github.io/stakater-charts"),
			remote("kube-prometheus-stack", "kube-prometheus-stack", "82.18.0", prom),
			remote("alertmanager-oauth2-proxy", "oauth2-proxy", "10.7.0", "https://oauth2-proxy.github.io/manifests"),
			remote("prometheus-oauth2-proxy", "oauth2-proxy", "10.7.0", "https://oauth2-proxy.github.io/manifests"),
			remote("fastly-exporter", "prometheus-fastly-exporter", "0.13.0", prom),
			remote("prometheus-adapter", "prometheus-adapter", "5.3.0", prom),
			remote("prometheus-pushgateway", "prometheus-pushgateway", "3.8.0", prom),
			remote("tempo", "tempo-distributed", "1.61.3", "https://grafana.github.io/helm-charts"),
			// In-repo charts with no autoscaler, not copied into the fixture.
			missing("argo-services", "charts/argo-services"),
			missing("asset-manager", "charts/asset-manager"),
			missing("db-backup", "charts/db-backup"),
			missing("external-secrets", "charts/external-secrets"),
			missing("govuk-e2e-tests", "charts/govuk-e2e-tests"),
			missing("govuk-jobs", "charts/govuk-jobs"),
			missing("licensify", "charts/licensify"),
			missing("mirror", "charts/mirror"),
			missing("search-index-env-sync", "charts/search-index-env-sync"),
			missing("govuk-synthetic-test-app", "charts/govuk-synthetic-test-app"),
			missing("release-app", "charts/release"),
			missing("renovate", "charts/renovate"),
			missing("router-probe-backend", "charts/router-probe-backend"),
		},
	}

	// jsa4000/Cloud-Native-Application-Definition: two stand-alone Helm
	// Applications (value file, inline values, fileParameters; the second
	// through a file:// dependency aliased "app"), repoURL https without .git.
	jsa := gitopsCase{
		name: "jsa4000-cnad", root: filepath.Join(heldoutArgo, "jsa4000-cnad"), path: ".",
		urls: []string{"https://github.com/jsa4000/Cloud-Native-Application-Definition"},
		want: []wantAutoscaler{
			{"webapp/HorizontalPodAutoscaler/nginx-app", "Deployment/nginx-app", 1, 100, "cpu 80%",
				"argocd/application.yaml Application argocd/ngnix-app → helm → helm/templates/hpa.yaml"},
			{"webapp/HorizontalPodAutoscaler/nginx-app-ots", "Deployment/nginx-app-ots", 1, 100, "cpu 80%",
				"argocd/application-ots.yaml Application argocd/ngnix-app-ots → argocd/helm → argocd/helm/charts/app/templates/hpa.yaml"},
		},
		absent: []string{"default/HorizontalPodAutoscaler/nginx-app", "default/HorizontalPodAutoscaler/myapp"},
	}

	// aws-samples/appmod-blueprints: ApplicationSets whose matrix combines the
	// clusters generator with a git directories generator over a repoURL
	// taken from cluster annotations: nothing can be generated offline, so the
	// kustomizations are rendered on their own and both ApplicationSets named.
	appmod := gitopsCase{
		name: "appmod-web-store", root: filepath.Join(heldoutArgo, "appmod-web-store"), path: ".",
		want: []wantAutoscaler{{"default/HorizontalPodAutoscaler/ui", "Deployment/ui", 1, 2, "cpu 80%", ""}},
		findings: []string{
			"gitops-not-followed: ApplicationSet argocd/web-store-frontend: generators[0].matrix.generators[0].clusters",
			"gitops-not-followed: ApplicationSet argocd/web-store-backend: generators[0].matrix.generators[0].clusters",
		},
	}

	// Platform9-Community/pf9-gitops-demo: one Kustomize-typed Application
	// per environment, each overlay on ../base; production patches the
	// HPA's floor. repoURL https with .git. The base alone is delivered by
	// no Application.
	pf9 := func(env string, min int32) wantAutoscaler {
		return wantAutoscaler{env + "/HorizontalPodAutoscaler/hello-gitops", "Deployment/hello-gitops", min, 10, "cpu 50%",
			"argo/hello-gitops-" + env + ".yaml Application hello-gitops-" + env + " → kustomize/base/kustomization.yaml → kustomize/base/hpa.yaml"}
	}
	platform9 := gitopsCase{
		name: "pf9-gitops-demo", root: filepath.Join(heldoutArgo, "pf9-gitops-demo"), path: ".",
		urls:   []string{"https://github.com/Platform9-Community/pf9-gitops-demo.git"},
		want:   []wantAutoscaler{pf9("dev", 1), pf9("staging", 1), pf9("production", 3)},
		absent: []string{"default/HorizontalPodAutoscaler/hello-gitops"},
	}

	for _, c := range []gitopsCase{govuk, jsa, appmod, platform9} {
		t.Run(c.name, c.run)
	}
}
