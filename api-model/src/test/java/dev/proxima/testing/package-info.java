/**
 * Test helpers the modules share through this module's test jar that run things as an operator
 * does: packaged jars as processes, API servers they can reach, exported clusters. Kept out of
 * {@code dev.proxima.model} because they use the API client, which the model's purity rule forbids
 * there.
 */
package dev.proxima.testing;
