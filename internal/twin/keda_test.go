package twin

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"
)

// The genuine KEDA v2.19.0, beside the plane: its operator (the
// ScaledObject controller that builds the HPA, the polling loop that
// scales from and to zero, the scalers, the gRPC metrics service) and its
// metrics adapter (the external metrics API the HPA controller reads,
// which asks the operator), each a process built from KEDA's own source
// by scripts/twin.sh (internal/kedadiff pins the release and its replace
// block), with KEDA's CRDs from the same module. The twin feeds KEDA as
// a queue would: the metrics-api scaler reads the backlog over HTTP from
// the twin's BacklogServer.

// kedaNamespace is where the operator keeps its cluster objects.
const kedaNamespace = "keda"

// startKEDA installs KEDA's CRDs, starts the operator and the adapter with
// one mutual-TLS certificate (their gRPC link and the adapter's serving
// certificate), and puts the adapter behind the aggregator as the
// external metrics API.
func startKEDA(ctx context.Context, t *testing.T, p *Plane, kubeconfig string) {
	t.Helper()
	operator, adapter, crds := os.Getenv("TWIN_KEDA_OPERATOR"), os.Getenv("TWIN_KEDA_ADAPTER"), os.Getenv("TWIN_KEDA_CRDS")
	if operator == "" || adapter == "" || crds == "" {
		t.Fatal("TWIN_KEDA_OPERATOR, TWIN_KEDA_ADAPTER and TWIN_KEDA_CRDS name no KEDA: run scripts/twin.sh")
	}
	installCRDs(ctx, t, p, crds)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: kedaNamespace}}
	if _, err := p.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	certs := writeCerts(t)
	grpcPort, servePort, metricsPort := freePort(t), freePort(t), freePort(t)
	env := []string{"KUBECONFIG=" + kubeconfig, "KEDA_CLUSTER_OBJECT_NAMESPACE=" + kedaNamespace,
		"POD_NAMESPACE=" + kedaNamespace, "WATCH_NAMESPACE="}
	startProcess(t, "keda-operator", operator, env,
		"--leader-elect=false",
		"--metrics-bind-address=0",
		"--health-probe-bind-address=0",
		fmt.Sprintf("--metrics-service-bind-address=127.0.0.1:%d", grpcPort),
		"--cert-dir="+certs,
		"--enable-cert-rotation=false",
		"--enable-webhook-patching=false",
		"--ca-dir="+certs,
		"--zap-log-level=info",
	)
	startProcess(t, "keda-adapter", adapter, env,
		"--kubeconfig="+kubeconfig,
		"--lister-kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig,
		"--authorization-kubeconfig="+kubeconfig,
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", servePort),
		"--cert-dir="+certs,
		"--tls-cert-file="+filepath.Join(certs, "tls.crt"),
		"--tls-private-key-file="+filepath.Join(certs, "tls.key"),
		fmt.Sprintf("--metrics-service-address=127.0.0.1:%d", grpcPort),
		"--metrics-service-grpc-authority=localhost",
		fmt.Sprintf("--port=%d", metricsPort),
	)
	registerAPIServices(ctx, t, p, "keda-metrics-apiserver", servePort, externalGroup)
}

// installCRDs creates the CustomResourceDefinitions in dir (KEDA's
// config/crd/bases) and waits until each is established.
func installCRDs(ctx context.Context, t *testing.T, p *Plane, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in %s: %v", dir, err)
	}
	client := apiextensions.NewForConfigOrDie(p.Config)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(b, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, &crd, metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			got, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			for _, c := range got.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			t.Fatalf("%s was not established: %v", crd.Name, err)
		}
	}
}

// writeCerts writes a certificate authority (ca.crt) and one key pair it
// signed (tls.crt, tls.key) for localhost, good for serving and as a
// client: KEDA's operator and adapter authenticate each other with it, as
// the certificates KEDA's chart mounts at /certs.
func writeCerts(t *testing.T) string {
	t.Helper()
	caKey, caCert := newCert(t, nil, nil, &x509.Certificate{
		Subject: pkix.Name{CommonName: "twin-ca"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	})
	key, cert := newCert(t, caKey, caCert, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "localhost"},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	})
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, block := range map[string]*pem.Block{
		"ca.crt":  {Type: "CERTIFICATE", Bytes: caCert.Raw},
		"tls.crt": {Type: "CERTIFICATE", Bytes: cert.Raw},
		"tls.key": {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// newCert makes a key and a certificate from template, signed by parent
// (self-signed when parent is nil), valid for a day.
func newCert(t *testing.T, parentKey *ecdsa.PrivateKey, parent, template *x509.Certificate) (*ecdsa.PrivateKey, *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	template.SerialNumber = serial
	template.NotBefore = time.Now().Add(-time.Hour)
	template.NotAfter = time.Now().Add(24 * time.Hour)
	if parent == nil {
		parent, parentKey = template, key
	}
	der, err := x509.CreateCertificate(rand.Reader, template, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return key, cert
}

// freePort is a loopback port free now, for a process that takes its
// port as a flag.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startProcess runs bin with args and env beside the test, its output in a
// log printed (its tail) when the test fails, and kills it when the test
// ends.
func startProcess(t *testing.T, name, bin string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	log, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			if b, err := os.ReadFile(log.Name()); err == nil {
				t.Logf("%s's log:\n%s", name, tail(b, 4000))
			}
		}
	})
}

// kedaHPA is the name KEDA gives the HPA it builds for the twin's
// ScaledObject (keda-hpa-<name>).
const kedaHPA = "keda-hpa-" + app

// TestBacklogEncoding holds BacklogServer's numbers to what KEDA does
// with them, for every backlog up to the ceiling's ten thousand messages:
// the metrics-api scaler's int64(v·1000) (GenerateMetricInMili) gives back
// the model's milli-units, and a whole count is served exactly (KEDA
// compares it with the activation threshold as it is).
func TestBacklogEncoding(t *testing.T) {
	for milli := int64(0); milli <= 10_000_000; milli++ {
		v := servedBacklog(milli)
		if got := int64(v * 1000); got != milli {
			t.Fatalf("%d milli-units are served as %v, which KEDA keeps as %d", milli, v, got)
		}
		if milli%1000 == 0 && v != float64(milli/1000) {
			t.Fatalf("%d messages are served as %v", milli/1000, v)
		}
		if v-float64(milli)/1000 > 1e-12*max(1, v) {
			t.Fatalf("%d milli-units are served as %v, too far above", milli, v)
		}
	}
}
