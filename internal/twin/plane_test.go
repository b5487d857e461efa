package twin

import (
	"context"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/storage/etcd3/testserver"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregator "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	kubectrlmgrtesting "k8s.io/kubernetes/cmd/kube-controller-manager/app/testing"
)

// PlaneOptions are the control plane's settings, in real time (the
// caller divides the model's durations by its compression).
type PlaneOptions struct {
	SyncPeriod          time.Duration // --horizontal-pod-autoscaler-sync-period
	DownscaleWindow     time.Duration // --horizontal-pod-autoscaler-downscale-stabilization
	CPUInitialization   time.Duration // --horizontal-pod-autoscaler-cpu-initialization-period
	InitialReadiness    time.Duration // --horizontal-pod-autoscaler-initial-readiness-delay
	Metrics             MetricsSource
	ObserveMetricsCalls func(group, ns string)
	// KEDA runs KEDA's operator and metrics adapter (keda_test.go): the
	// external metrics API is then KEDA's, and Backlog (milli-units by
	// namespace) is served to its metrics-api scaler at BacklogURL.
	KEDA    bool
	Backlog func(ns string) (int64, bool)
}

// Plane is a running control plane: etcd, kube-apiserver and
// kube-controller-manager of Kubernetes v1.34.0 in this process, kwok
// beside it for the node and the pods, the twin's metrics server behind
// the aggregator.
type Plane struct {
	Client  *kubernetes.Clientset
	Dynamic dynamic.Interface
	Config  *rest.Config
	// BacklogURL, with KEDA, is the backlog server's address: a
	// namespace's backlog is at BacklogURL + namespace.
	BacklogURL string
}

// node is the one node kwok keeps; every pod names it (there is no
// scheduler: the twin prices the controller, not placement).
const node = "twin-node"

// StartPlane starts every part on the loopback and stops them when t ends.
func StartPlane(t *testing.T, o PlaneOptions) *Plane {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)

	etcd := testserver.RunEtcd(t, nil)
	storage := storagebackend.NewDefaultConfig("/twin", nil)
	storage.Transport.ServerList = etcd.Endpoints()
	api, err := kubeapiservertesting.StartTestServer(t, nil, []string{
		"--disable-admission-plugins=ServiceAccount",
		"--authorization-mode=RBAC",
	}, storage)
	if err != nil {
		t.Fatalf("kube-apiserver: %v", err)
	}
	t.Cleanup(api.TearDownFn)
	p := &Plane{Config: api.ClientConfig}
	p.Client = kubernetes.NewForConfigOrDie(p.Config)
	p.Dynamic = dynamic.NewForConfigOrDie(p.Config)
	kubeconfig := writeKubeconfig(t, p.Config)

	metrics := NewMetricsServer(o.Metrics, o.ObserveMetricsCalls)
	t.Cleanup(metrics.Close)
	groups := []string{resourceGroup, externalGroup}
	if o.KEDA {
		groups = groups[:1]
	}
	registerAPIServices(ctx, t, p, "metrics", loopbackPort(t, metrics.URL), groups...)

	kcm, err := kubectrlmgrtesting.StartTestServer(ctx, []string{
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		"--controllers=deployment,replicaset,horizontalpodautoscaling",
		"--horizontal-pod-autoscaler-sync-period=" + o.SyncPeriod.String(),
		"--horizontal-pod-autoscaler-downscale-stabilization=" + o.DownscaleWindow.String(),
		"--horizontal-pod-autoscaler-cpu-initialization-period=" + o.CPUInitialization.String(),
		"--horizontal-pod-autoscaler-initial-readiness-delay=" + o.InitialReadiness.String(),
	})
	if err != nil {
		t.Fatalf("kube-controller-manager: %v", err)
	}
	t.Cleanup(kcm.TearDownFn)

	startKwok(t, kubeconfig)
	createNode(ctx, t, p)
	if o.KEDA {
		backlog := NewBacklogServer(o.Backlog, o.ObserveMetricsCalls)
		t.Cleanup(backlog.Close)
		p.BacklogURL = backlog.URL + "/backlog/"
		startKEDA(ctx, t, p, kubeconfig)
	}
	return p
}

// writeKubeconfig writes the apiserver's client configuration for kwok and
// the controller manager.
func writeKubeconfig(t *testing.T, c *rest.Config) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["twin"] = &clientcmdapi.Cluster{Server: c.Host, CertificateAuthorityData: c.CAData, TLSServerName: c.ServerName}
	cfg.AuthInfos["twin"] = &clientcmdapi.AuthInfo{Token: c.BearerToken, ClientCertificateData: c.CertData, ClientKeyData: c.KeyData}
	cfg.Contexts["twin"] = &clientcmdapi.Context{Cluster: "twin", AuthInfo: "twin"}
	cfg.CurrentContext = "twin"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// registerAPIServices puts the server on the loopback port behind the
// aggregator for each group: an ExternalName Service naming the loopback
// (the aggregator resolves it to host:port without endpoints) and an
// APIService per group, then waits until every one is available.
func registerAPIServices(ctx context.Context, t *testing.T, p *Plane, name string, port int, groups ...string) {
	t.Helper()
	if _, err := p.Client.CoreV1().Namespaces().Get(ctx, "twin-system", metav1.GetOptions{}); err != nil {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "twin-system"}}
		if _, err := p.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "twin-system"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost",
			Ports: []corev1.ServicePort{{Name: "https", Port: int32(port)}}},
	}
	if _, err := p.Client.CoreV1().Services("twin-system").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	agg := aggregator.NewForConfigOrDie(p.Config)
	for _, group := range groups {
		svcPort := int32(port)
		as := &apiregv1.APIService{
			ObjectMeta: metav1.ObjectMeta{Name: version + "." + group},
			Spec: apiregv1.APIServiceSpec{
				Service:               &apiregv1.ServiceReference{Namespace: "twin-system", Name: name, Port: &svcPort},
				Group:                 group,
				Version:               version,
				InsecureSkipTLSVerify: true,
				GroupPriorityMinimum:  100,
				VersionPriority:       100,
			},
		}
		if _, err := agg.ApiregistrationV1().APIServices().Create(ctx, as, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		for _, group := range groups {
			as, err := agg.ApiregistrationV1().APIServices().Get(ctx, version+"."+group, metav1.GetOptions{})
			if err != nil || !available(as) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("%s did not become available for %v: %v", name, groups, err)
	}
}

// loopbackPort is the port of a server's URL on the loopback.
func loopbackPort(t *testing.T, rawURL string) int {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	_, portText, _ := net.SplitHostPort(u.Host)
	port, err := strconv.Atoi(portText)
	if err != nil {
		t.Fatalf("%s: %v", rawURL, err)
	}
	return port
}

func available(as *apiregv1.APIService) bool {
	for _, c := range as.Status.Conditions {
		if c.Type == apiregv1.Available {
			return c.Status == apiregv1.ConditionTrue
		}
	}
	return false
}

// startKwok runs kwok (its path in TWIN_KWOK, built by scripts/twin.sh)
// with the twin's stages: the node, and pods that start at once and turn
// ready after their dead time.
func startKwok(t *testing.T, kubeconfig string) {
	t.Helper()
	bin := os.Getenv("TWIN_KWOK")
	if bin == "" {
		t.Fatal("TWIN_KWOK names no kwok binary: run scripts/twin.sh, or build sigs.k8s.io/kwok/cmd/kwok and set it")
	}
	stages := filepath.Join(t.TempDir(), "stages.yaml")
	if err := os.WriteFile(stages, []byte(kwokStages), 0o644); err != nil {
		t.Fatal(err)
	}
	startProcess(t, "kwok", bin, nil,
		"--kubeconfig="+kubeconfig,
		"--config="+stages,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=twin.capreport.dev/node=kwok",
		"--node-lease-duration-seconds=40",
		"--server-address=127.0.0.1:0",
	)
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

func createNode(ctx context.Context, t *testing.T, p *Plane) {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node,
		Annotations: map[string]string{"twin.capreport.dev/node": "kwok"},
		Labels:      map[string]string{"type": "kwok"}}}
	if _, err := p.Client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := p.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range got.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("kwok did not make %s ready: %v", node, err)
	}
}
