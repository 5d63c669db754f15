"""https end to end with a real server: Debian's nginx on loopback with HTTP/2 and a
certificate made by the test (openssl) and trusted through SSL_CERT_FILE; an untrusted
certificate and a wrong host name fail their rows with messages that say so. nginx is
started (as a foreground process) and stopped by the test itself."""

import json
import os
import shutil
import socket
import subprocess
import time
import unittest

from harness import E2ETestCase, binary, link_demo, stop_process, wait_until

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_cert(directory, name):
    """A self-signed certificate for 127.0.0.1 and localhost (ECDSA P-256, one day)."""
    key, cert = directory / (name + ".key"), directory / (name + ".pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=vitrine-test",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True)
    return key, cert


class Nginx:
    """nginx in the foreground (daemon off) serving `root` on two https ports: `port` with a
    certificate the test trusts, `untrusted_port` with another one; HTTP/2 on both. Also plain
    http/1.1 on `http_port` (the benchmarks' fast server)."""

    def __init__(self, tmp, root):
        self.dir = tmp / "nginx"
        self.dir.mkdir()
        self.key, self.cert = make_cert(self.dir, "trusted")
        other_key, other_cert = make_cert(self.dir, "untrusted")
        self.port, self.untrusted_port, self.http_port = free_port(), free_port(), free_port()
        self.access_log = self.dir / "access.log"
        conf = self.dir / "nginx.conf"
        conf.write_text("""
daemon off;
master_process off;
worker_processes 1;
pid %(dir)s/nginx.pid;
error_log %(dir)s/error.log warn;
events { worker_connections 256; }
http {
    log_format vt '$server_protocol $connection $uri $status';
    access_log %(dir)s/access.log vt;
    client_body_temp_path %(dir)s/body;
    proxy_temp_path %(dir)s/proxy;
    fastcgi_temp_path %(dir)s/fastcgi;
    uwsgi_temp_path %(dir)s/uwsgi;
    scgi_temp_path %(dir)s/scgi;
    types { image/png png; application/json json; }
    server {
        listen 127.0.0.1:%(port)d ssl http2;
        listen 127.0.0.2:%(port)d ssl http2;
        listen 127.0.0.1:%(http)d;
        ssl_certificate %(cert)s;
        ssl_certificate_key %(key)s;
        root %(root)s;
        location ~ ^/img/[0-9]+/(.*)$ { try_files /$1 =404; }
    }
    server {
        listen 127.0.0.1:%(untrusted)d ssl http2;
        ssl_certificate %(ocert)s;
        ssl_certificate_key %(okey)s;
        root %(root)s;
    }
}
""" % {"dir": self.dir, "port": self.port, "untrusted": self.untrusted_port, "http": self.http_port, "cert": self.cert,
       "key": self.key, "ocert": other_cert, "okey": other_key, "root": root})
        self.proc = subprocess.Popen([NGINX, "-p", str(self.dir), "-c", str(conf), "-e", str(self.dir / "error.log")],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

        def up():
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return True
            except OSError:
                return self.proc.poll() is not None
        wait_until(up, 10)
        if self.proc.poll() is not None:
            raise RuntimeError("nginx did not start: %s" % self.proc.stderr.read().decode())

    def url(self, path, host="127.0.0.1", port=None):
        return "https://%s:%d/%s" % (host, port or self.port, path)

    def http_url(self, path):
        return "http://127.0.0.1:%d/%s" % (self.http_port, path)

    def log(self):
        return self.access_log.read_text().splitlines() if self.access_log.exists() else []

    def stop(self):
        stop_process(self.proc)


class HTTPSTests(E2ETestCase):
    def setUp(self):
        super().setUp()
        if not os.path.exists(NGINX) or not shutil.which("openssl"):
            self.fail("nginx and openssl are needed (Debian packages nginx-light or nginx, openssl)")
        self.root = self.tmp / "root"
        link_demo(self.root, "flags/fr.png")
        png = (self.root / "flags" / "fr.png").resolve().read_bytes()
        for i in range(12):
            (self.root / ("p%d.png" % i)).write_bytes(png)
        self.nginx = Nginx(self.tmp, self.root)
        self.addCleanup(self.nginx.stop)

    def test_rows_over_https_and_http2_and_tls_failures_say_why(self):
        # Given a gallery over https: twelve good rows, one on a host name the certificate does
        # not cover, one on a server whose certificate nobody trusts
        items = [{"title": "Wrong host", "url": self.nginx.url("p0.png", host="127.0.0.2")},
                 {"title": "Untrusted", "url": self.nginx.url("p0.png", port=self.nginx.untrusted_port)}]
        items += [{"title": "Good %d" % i, "url": "/p%d.png" % i} for i in range(12)]
        (self.root / "g.json").write_text(json.dumps(items))

        # When the browser opens it, trusting the test's certificate through SSL_CERT_FILE
        term = self.launch(["--no-disk-cache", self.nginx.url("g.json")], 110, 70,
                           env_extra={"SSL_CERT_FILE": str(self.nginx.cert)})
        self.wait_started(term, 15)
        term.wait_for(lambda lines: "loaded 12 " in lines[-1] and "failed 2" in lines[-1], 20,
                      "12 loaded rows and 2 failed ones")

        # Then the two bad rows say why, and every good image came over HTTP/2, on few connections
        text = "\n".join(term.capture())
        self.assertIn("certificate is for another host", text)
        self.assertIn("certificate not trusted", text)
        images = [l.split() for l in self.nginx.log() if "/p" in l]
        self.assertGreaterEqual(len(images), 12, self.nginx.log())
        self.assertTrue(all(fields[0] == "HTTP/2.0" for fields in images), images)
        self.assertLessEqual(len({fields[1] for fields in images}), 2, images)

    def test_without_ssl_cert_file_the_self_made_certificate_is_not_trusted(self):
        (self.root / "h.json").write_text(json.dumps([{"title": "One", "url": "/p0.png"}]))
        env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
        listed = subprocess.run([binary(), "list", self.nginx.url("h.json")], capture_output=True, text=True,
                                timeout=20, env=env)
        self.assertNotEqual(listed.returncode, 0)
        self.assertIn("certificate not trusted", listed.stderr)
        env["SSL_CERT_FILE"] = str(self.nginx.cert)
        listed = subprocess.run([binary(), "list", self.nginx.url("h.json")], capture_output=True, text=True,
                                timeout=20, env=env)
        self.assertEqual(listed.returncode, 0, listed.stderr)
        self.assertIn("One", listed.stdout)


if __name__ == "__main__":
    unittest.main()
