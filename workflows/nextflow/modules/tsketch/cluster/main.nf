process TSKETCH_CLUSTER {
    tag "$meta.id"
    label 'process_medium'
    label 'process_gpu'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine in ['singularity', 'apptainer'] && !task.ext.singularity_pull_docker_container ?
        'docker-daemon://tsketch:0.1.0' :
        'tsketch:0.1.0' }"

    input:
    tuple val(meta), path(sketches)
    path links      // optional: all the `dist -d D --block I/N` parts, read instead of computing the pairs; [] for none
    path quality    // optional: NAME<TAB>SCORE lines or CheckM2's quality_report.tsv; [] for none

    output:
    tuple val(meta), path("${task.ext.prefix ?: meta.id}.tsv"), emit: clusters
    tuple val(meta), path("representatives.txt"),               emit: representatives
    tuple val("${task.process}"), val('tsketch'), eval("tsketch --version | sed 's/tsketch //'"), emit: versions_tsketch, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    def prefix = task.ext.prefix ?: "${meta.id}"
    // a task given an accelerator (label process_gpu, see nextflow.config) must get its GPU
    def device = task.ext.device ?: (task.accelerator ? 'cuda' : 'auto')
    // staged names keep the user's file names: quoted for the shell
    def q = { f -> "'" + f.toString().replace("'", "'\\''") + "'" }
    def quality_arg = quality ? "--quality ${q(quality)}" : ''
    def links_args = [links].flatten().collect { "--links ${q(it)}" }.join(' ')
    """
    tsketch \\
        cluster \\
        $args \\
        $links_args \\
        $quality_arg \\
        -p $task.cpus \\
        --device $device \\
        ${[sketches].flatten().collect { q(it) }.join(' ')} \\
        -o ${prefix}.tsv \\
        --representatives representatives.txt
    """

    stub:
    def args = task.ext.args ?: ''
    def prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo $args
    touch ${prefix}.tsv representatives.txt
    """
}
