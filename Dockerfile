# SPDX-License-Identifier: Apache-2.0
# Container image for kcoord: builds with meson on Debian 12, then copies the
# binary into a slim runtime image that runs as a non-root user.
#
#   docker build -t kcoord .
#   docker run -p 9092:9092 -v kcoord-data:/data \
#       -e KCOORD_ADVERTISED_LISTENERS=PLAINTEXT://localhost:9092 kcoord
#
# Every property of conf/kcoord.conf can be set with a KCOORD_* variable
# (group.max.size -> KCOORD_GROUP_MAX_SIZE); extra arguments such as
# --override key=value are passed to kcoord.

FROM debian:12-slim AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      gcc libc6-dev meson ninja-build pkg-config python3 \
      libevent-dev liblmdb-dev libssl-dev libjansson-dev zlib1g-dev libpcre2-dev \
      libsnappy-dev liblz4-dev libxxhash-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN meson setup /build -Dbuildtype=release -Db_ndebug=false -Dwerror=false -Dtests=false \
 && meson compile -C /build \
 && strip /build/server/kcoord

FROM debian:12-slim
# Only the shared libraries kcoord links (readelf -d: NEEDED); zlib, lz4,
# xxhash, pcre2 and libstdc++ (for snappy) are already in the base image. apt's and
# dpkg's logs and backups are removed so that the layer holds just the libraries.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libevent-2.1-7 liblmdb0 libssl3 libjansson4 zlib1g libpcre2-8-0 \
      libsnappy1v5 liblz4-1 libxxhash0 \
 && rm -rf /var/lib/apt/lists/* /var/log/apt/* /var/log/dpkg.log \
      /var/lib/dpkg/*-old /var/cache/debconf/*-old /var/cache/ldconfig/aux-cache \
 && groupadd --system --gid 10001 kcoord \
 && useradd --system --uid 10001 --gid kcoord --home-dir /data --shell /usr/sbin/nologin kcoord \
 && mkdir -p /data /etc/kcoord \
 && chown kcoord:kcoord /data
COPY --from=build /build/server/kcoord /usr/local/bin/kcoord
COPY conf/kcoord.conf /etc/kcoord/kcoord.conf

# Listen on every interface inside the container; keep the data on the volume.
# The admin endpoint stays on the container's loopback, for the health check.
ENV KCOORD_LISTENERS=PLAINTEXT://:9092 \
    KCOORD_LOG_DIRS=/data \
    KCOORD_ADMIN_LISTENERS=http://127.0.0.1:9644

USER kcoord
VOLUME ["/data"]
EXPOSE 9092
HEALTHCHECK --interval=10s --timeout=5s --start-period=5s --retries=3 \
    CMD ["/usr/local/bin/kcoord", "ctl", "--admin", "http://127.0.0.1:9644", "health"]
ENTRYPOINT ["/usr/local/bin/kcoord", "--config", "/etc/kcoord/kcoord.conf"]
CMD []
