"""Reading a connection from a kubeconfig context, and the one clear message for each bad kubeconfig."""

import base64

import pytest
import yaml

from clusters.k8s import ClusterConnection, InvalidKubeconfig, contexts, from_kubeconfig

CA = b"-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n"


def kubeconfig(user=None, cluster=None, current="beijing", extra_contexts=()):
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": current,
        "clusters": [{"name": "bj", "cluster": cluster or {"server": "https://10.0.0.1:6443"}}],
        "users": [{"name": "bj-admin", "user": user if user is not None else {"token": "abc"}}],
        "contexts": [
            {"name": "beijing", "context": {"cluster": "bj", "user": "bj-admin"}},
            *extra_contexts,
        ],
    }


def test_a_token_context_gives_server_and_token():
    conn = from_kubeconfig(yaml.safe_dump(kubeconfig()))
    assert conn == ClusterConnection(name="beijing", server="https://10.0.0.1:6443", token="abc")


def test_the_token_never_appears_in_the_repr():
    conn = from_kubeconfig(kubeconfig(user={"token": "sup3r-s3cret"}))
    assert "sup3r-s3cret" not in repr(conn)


def test_inline_certificate_data_is_decoded():
    cert, key = b"CERT", b"KEY"
    conn = from_kubeconfig(
        kubeconfig(
            user={
                "client-certificate-data": base64.b64encode(cert).decode(),
                "client-key-data": base64.b64encode(key).decode(),
            },
            cluster={"server": "https://h:6443", "certificate-authority-data": base64.b64encode(CA).decode()},
        )
    )
    assert (conn.client_cert_data, conn.client_key_data, conn.ca_data, conn.token) == (cert, key, CA, None)


def test_files_are_read_relative_to_the_kubeconfig_directory(tmp_path):
    (tmp_path / "ca.crt").write_bytes(CA)
    (tmp_path / "token").write_text("from-file\n")
    conn = from_kubeconfig(
        kubeconfig(
            user={"tokenFile": "token"}, cluster={"server": "https://h", "certificate-authority": "ca.crt"}
        ),
        base_dir=tmp_path,
    )
    assert conn.token == "from-file"
    assert conn.ca_data == CA


def test_a_pasted_kubeconfig_may_not_point_at_files_on_the_server():
    with pytest.raises(InvalidKubeconfig, match="refers to a file"):
        from_kubeconfig(kubeconfig(user={"tokenFile": "/etc/shadow"}), files=False)


def test_a_server_url_with_a_path_prefix_is_kept_without_the_trailing_slash():
    conn = from_kubeconfig(kubeconfig(cluster={"server": "http://127.0.0.1:18081/clusters/shanghai/"}))
    assert conn.server == "http://127.0.0.1:18081/clusters/shanghai"


def test_insecure_skip_tls_verify_is_read():
    conn = from_kubeconfig(kubeconfig(cluster={"server": "https://h", "insecure-skip-tls-verify": True}))
    assert conn.insecure_skip_tls_verify is True


def test_a_named_context_is_chosen_over_the_current_one():
    other = {"name": "shanghai", "context": {"cluster": "bj", "user": "bj-admin"}}
    config = kubeconfig(extra_contexts=[other])
    assert from_kubeconfig(config, context="shanghai").name == "shanghai"
    assert contexts(yaml.safe_dump(config)) == ["beijing", "shanghai"]


@pytest.mark.parametrize(
    ("config", "context", "message"),
    [
        ("clusters: [", None, "not valid YAML"),
        ("just a string", None, "must be a YAML mapping"),
        (kubeconfig(), "nowhere", "no context named 'nowhere'"),
        (kubeconfig(current=""), None, "no current-context"),
        ({**kubeconfig(), "clusters": []}, None, "no cluster named 'bj'"),
        ({**kubeconfig(), "users": []}, None, "no user named 'bj-admin'"),
        (kubeconfig(cluster={"insecure-skip-tls-verify": True}), None, "no server URL"),
        (kubeconfig(cluster={"server": "ftp://h"}), None, "not an http"),
        (kubeconfig(user={"exec": {"command": "aws"}}), None, "exec plugin, which is not supported"),
        (kubeconfig(user={"auth-provider": {"name": "gcp"}}), None, "auth-provider plugin"),
        (kubeconfig(user={"username": "a", "password": "b"}), None, "basic authentication"),
        (kubeconfig(user={"client-certificate-data": "!!notbase64"}), None, "not valid base64"),
        (kubeconfig(user={"client-certificate-data": "Q0VSVA=="}), None, "needs its key"),
    ],
)
def test_a_bad_kubeconfig_gives_one_clear_message(config, context, message):
    text = config if isinstance(config, str) else yaml.safe_dump(config)
    with pytest.raises(InvalidKubeconfig, match=message):
        from_kubeconfig(text, context=context)
