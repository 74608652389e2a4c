//! One HTTP GET to a port of a pod, through the API server's port-forward: what `kubectl
//! port-forward` and istioctl do to reach istiod's debug endpoints, which answer only requests
//! from localhost (or bearing a token istiod authenticates; the API server's pod proxy strips
//! the caller's). The request arrives in the pod's network namespace from localhost.
//!
//! The connection is a WebSocket (RFC 6455) upgraded from a request to the pod's
//! `portforward` subresource with the `v4.channel.k8s.io` subprotocol: every message starts
//! with a channel byte (0: the port's data, 1: its errors), and the first message on each
//! channel carries the port (two bytes, little-endian). bosun's Kubernetes client is built
//! without a WebSocket library, so the few frames needed are written and read here.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http::{Request, StatusCode, header};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::Client;

/// Why a forwarded GET failed.
#[derive(Debug, thiserror::Error)]
pub enum PortForwardError {
    #[error("port-forward to pod {pod} port {port}: {message}")]
    Failed {
        pod: String,
        port: u16,
        message: String,
    },
}

/// An HTTP response read through the forward.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForwardedResponse {
    pub status: u16,
    pub body: Vec<u8>,
}

fn nonce() -> [u8; 16] {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let mut out = [0u8; 16];
    let mut x = nanos ^ 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834;
    for b in out.iter_mut() {
        // xorshift: a nonce, not a secret.
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    out
}

fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A client frame: FIN, binary, masked (RFC 6455 5.2).
fn client_frame(payload: &[u8], mask: [u8; 4]) -> Vec<u8> {
    let mut out = vec![0x82];
    match payload.len() {
        n if n < 126 => out.push(0x80 | n as u8),
        n if n <= 0xffff => {
            out.push(0x80 | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(0x80 | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    out.extend_from_slice(&mask);
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    out
}

/// Reads one frame: (FIN, opcode, payload).
async fn read_frame<R: AsyncReadExt + Unpin>(io: &mut R) -> std::io::Result<(bool, u8, Vec<u8>)> {
    let mut head = [0u8; 2];
    io.read_exact(&mut head).await?;
    let fin = head[0] & 0x80 != 0;
    let opcode = head[0] & 0x0f;
    let masked = head[1] & 0x80 != 0;
    let len = match head[1] & 0x7f {
        126 => {
            let mut b = [0u8; 2];
            io.read_exact(&mut b).await?;
            u64::from(u16::from_be_bytes(b))
        }
        127 => {
            let mut b = [0u8; 8];
            io.read_exact(&mut b).await?;
            u64::from_be_bytes(b)
        }
        n => u64::from(n),
    };
    if len > 64 << 20 {
        return Err(std::io::Error::other("a WebSocket frame over 64 MiB"));
    }
    let mut mask = [0u8; 4];
    if masked {
        io.read_exact(&mut mask).await?;
    }
    let mut payload = vec![0u8; len as usize];
    io.read_exact(&mut payload).await?;
    if masked {
        for (i, b) in payload.iter_mut().enumerate() {
            *b ^= mask[i % 4];
        }
    }
    Ok((fin, opcode, payload))
}

/// A complete HTTP/1.1 response in `bytes`, if it is one: its status and body (Content-Length
/// or chunked; else all that came before the connection closed, when `closed`).
pub(crate) fn parse_response(bytes: &[u8], closed: bool) -> Option<ForwardedResponse> {
    let end = bytes.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&bytes[..end]).ok()?;
    let mut lines = head.split("\r\n");
    let status: u16 = lines.next()?.split_whitespace().nth(1)?.parse().ok()?;
    let mut length = None;
    let mut chunked = false;
    for line in lines {
        let (name, value) = line.split_once(':')?;
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
        if name == "content-length" {
            length = value.parse::<usize>().ok();
        } else if name == "transfer-encoding" && value.eq_ignore_ascii_case("chunked") {
            chunked = true;
        }
    }
    let rest = &bytes[end + 4..];
    if chunked {
        let mut body = Vec::new();
        let mut at = 0;
        loop {
            let line_end = at + rest[at..].windows(2).position(|w| w == b"\r\n")?;
            let size_text = std::str::from_utf8(&rest[at..line_end]).ok()?;
            let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
            at = line_end + 2;
            if size == 0 {
                return Some(ForwardedResponse { status, body });
            }
            if rest.len() < at + size + 2 {
                return None;
            }
            body.extend_from_slice(&rest[at..at + size]);
            at += size + 2;
        }
    }
    match length {
        Some(n) if rest.len() >= n => Some(ForwardedResponse {
            status,
            body: rest[..n].to_vec(),
        }),
        Some(_) => None,
        None if closed => Some(ForwardedResponse {
            status,
            body: rest.to_vec(),
        }),
        None => None,
    }
}

impl Client {
    /// `GET path` on `port` of pod `namespace/pod`, through the API server's port-forward,
    /// waiting at most `timeout` in all.
    pub async fn pod_get(
        &self,
        namespace: &str,
        pod: &str,
        port: u16,
        path: &str,
        timeout: Duration,
    ) -> Result<ForwardedResponse, PortForwardError> {
        let fail = |message: String| PortForwardError::Failed {
            pod: format!("{namespace}/{pod}"),
            port,
            message,
        };
        match tokio::time::timeout(timeout, self.pod_get_unbounded(namespace, pod, port, path))
            .await
        {
            Ok(result) => result.map_err(fail),
            Err(_) => Err(fail(format!("no complete answer after {timeout:?}"))),
        }
    }

    async fn pod_get_unbounded(
        &self,
        namespace: &str,
        pod: &str,
        port: u16,
        path: &str,
    ) -> Result<ForwardedResponse, String> {
        let uri = format!("/api/v1/namespaces/{namespace}/pods/{pod}/portforward?ports={port}");
        let request = Request::get(uri)
            .header(header::CONNECTION, "Upgrade")
            .header(header::UPGRADE, "websocket")
            .header(header::SEC_WEBSOCKET_VERSION, "13")
            .header(header::SEC_WEBSOCKET_KEY, base64(&nonce()))
            .header(header::SEC_WEBSOCKET_PROTOCOL, "v4.channel.k8s.io")
            .body(kube::client::Body::empty())
            .map_err(|e| e.to_string())?;
        let response = self
            .kube
            .send(request)
            .await
            .map_err(|e| crate::timeout::describe(&e))?;
        if response.status() != StatusCode::SWITCHING_PROTOCOLS {
            let status = response.status();
            let body = response
                .into_body()
                .collect_bytes()
                .await
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            return Err(format!(
                "the API server answered {status} instead of switching protocols: {}",
                body.trim()
            ));
        }
        let upgraded = hyper::upgrade::on(response)
            .await
            .map_err(|e| format!("upgrading the connection: {e}"))?;
        let mut io = TokioIo::new(upgraded);

        // The request, on the data channel, once the server said which port it is.
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: localhost:{port}\r\nUser-Agent: bosun\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
        );
        let mut sent = false;
        let mut seen_port = [false, false];
        let mut data = Vec::new();
        let mut errors = Vec::new();
        let mut message: Vec<u8> = Vec::new();
        loop {
            let frame = read_frame(&mut io).await;
            let (fin, opcode, payload) = match frame {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                Err(e) => return Err(format!("reading the forwarded connection: {e}")),
            };
            match opcode {
                0..=2 => message.extend_from_slice(&payload),
                8 => break,
                9 => {
                    let mut pong =
                        client_frame(&payload, nonce()[..4].try_into().unwrap_or_default());
                    pong[0] = 0x8a;
                    io.write_all(&pong).await.map_err(|e| e.to_string())?;
                    continue;
                }
                _ => continue,
            }
            if !fin {
                continue;
            }
            let whole = std::mem::take(&mut message);
            let Some((&channel, mut body)) = whole.split_first() else {
                continue;
            };
            let channel = usize::from(channel);
            if channel > 1 {
                continue;
            }
            if !seen_port[channel] {
                // The first message of a channel is its port.
                seen_port[channel] = true;
                body = body.get(2..).unwrap_or_default();
            }
            if channel == 0 {
                data.extend_from_slice(body);
            } else {
                errors.extend_from_slice(body);
            }
            if !errors.is_empty() {
                return Err(String::from_utf8_lossy(&errors).trim().to_string());
            }
            if !sent && seen_port[0] {
                let mut payload = vec![0u8];
                payload.extend_from_slice(request.as_bytes());
                let mask: [u8; 4] = nonce()[..4].try_into().unwrap_or_default();
                io.write_all(&client_frame(&payload, mask))
                    .await
                    .map_err(|e| format!("writing the request: {e}"))?;
                io.flush().await.map_err(|e| e.to_string())?;
                sent = true;
            }
            if let Some(response) = parse_response(&data, false) {
                let _ = io.shutdown().await;
                return Ok(response);
            }
        }
        if !errors.is_empty() {
            return Err(String::from_utf8_lossy(&errors).trim().to_string());
        }
        parse_response(&data, true).ok_or_else(|| {
            if data.is_empty() {
                "the connection closed without an answer".to_string()
            } else {
                "the connection closed in the middle of the answer".to_string()
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_of_a_nonce() {
        assert_eq!(base64(b"bosun-portforwrd"), "Ym9zdW4tcG9ydGZvcndyZA==");
        assert_eq!(base64(b"ab"), "YWI=");
    }

    #[test]
    fn masked_frames_read_back() {
        let payload = vec![7u8; 300];
        let frame = client_frame(&payload, [1, 2, 3, 4]);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let (fin, opcode, read) = runtime.block_on(read_frame(&mut &frame[..])).unwrap();
        assert!(fin);
        assert_eq!(opcode, 2);
        assert_eq!(read, payload);
    }

    #[test]
    fn responses_complete_or_not() {
        // The bytes read, whether the connection closed, the response expected.
        type Case<'a> = (&'a [u8], bool, Option<(u16, &'a [u8])>);
        let cases: &[Case] = &[
            (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]", false, Some((200, b"[]"))),
            (b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n[]", false, None),
            (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n[{\r\n1\r\n}\r\n1\r\n]\r\n0\r\n\r\n",
                false,
                Some((200, b"[{}]")),
            ),
            (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n[{\r\n", false, None),
            (b"HTTP/1.1 401 Unauthorized\r\n\r\n", false, None),
            (b"HTTP/1.1 401 Unauthorized\r\n\r\n", true, Some((401, b""))),
            (b"HTTP/1.1 200", true, None),
        ];
        for (bytes, closed, want) in cases {
            let got = parse_response(bytes, *closed).map(|r| (r.status, r.body));
            assert_eq!(
                got,
                want.map(|(s, b)| (s, b.to_vec())),
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
}
