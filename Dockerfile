# Vigil in a container: the one executable on a glibc base (it links glibc; Alpine's musl
# cannot run it). Build the executable first, outside: bun run build (or bun run release and
# copy dist/release/vigil-linux-arm64 to dist/vigil for an arm64 image), then
#   docker build -t vigil .    (or podman build)
#   docker run -d -p 8080:8080 -v vigil-data:/var/lib/vigil vigil
FROM debian:bookworm-slim
# CA certificates for outbound HTTPS (language-model providers, Stripe)
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --user-group --uid 10001 --home-dir /var/lib/vigil --no-create-home --shell /usr/sbin/nologin vigil \
 && mkdir -p /var/lib/vigil \
 && chown vigil:vigil /var/lib/vigil \
 && chmod 0700 /var/lib/vigil
COPY --chmod=0755 dist/vigil /usr/local/bin/vigil
USER vigil
ENV VIGIL_DATA_DIR=/var/lib/vigil \
    VIGIL_HOST=0.0.0.0 \
    VIGIL_PORT=8080 \
    VIGIL_LOG_FORMAT=json
VOLUME /var/lib/vigil
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["/usr/local/bin/vigil", "healthcheck"]
# SIGTERM drains requests and closes the database; give it the time to
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/vigil"]
CMD ["serve"]
