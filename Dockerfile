FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY fakeapi ./fakeapi
RUN pip install --no-cache-dir '.[speed]'
EXPOSE 8080
CMD ["fakeapi", "serve", "--host", "0.0.0.0", "--port", "8080"]
