"use strict";exports.id=12,exports.ids=[12],exports.modules={3758:(e,t,o)=>{o.d(t,{s:()=>i});var s=o(1628),n=o(6987);const r=5;function i(e,t){const o=e.safeParse(t);if(o.success)return(0,s.ok)(o.data);const i=o.error.issues.slice(0,r).map(e=>`${(0,n.me)(e.path.filter(e=>"symbol"!=typeof e))}: ${e.message}`);return(0,s.f)((0,s.C)("DOCUMENT_INVALID",i.join("; ")))}},3778:(e,t,o)=>{o.d(t,{Bl:()=>m,VJ:()=>d,di:()=>a,ov:()=>c,tw:()=>i});var s=o(3999),n=o(9961),r=o(6902);const i=67108864,a=5,d=30,c=e=>(0,s.vU)("python3","-c","import socket, sys\ns = socket.socket()\ns.bind((sys.argv[1], 0))\nprint(s.getsockname()[1])",e),l=(e,t)=>({...(0,r.w1)(e,t),NCCL_DEBUG:"INFO"});function m(e,t,o,r){const i=e.container,a=["--rm","--pull","never","--network","host","--gpus",String(i.gpus)];i.shmSize&&a.push("--shm-size",i.shmSize);for(const e of i.devices)a.push("--device",e);for(const e of i.volumes)a.push("--volume",e);for(const[o,s]of Object.entries(l(e,t)))a.push("--env",`${o}=${s}`);return(0,s.vU)("timeout","--kill-after=10",String((0,n.ti)(r.timeout)+d),"docker","run",...a,...i.extraArgs,"--entrypoint","python3",o,"-c",n.Jy,JSON.stringify(r))}},7655:(e,t,o)=>{o.d(t,{h2:()=>p,iF:()=>v});var s=o(9760);const n=16,r=(e,t)=>Math.ceil(e/t);function i(e,t,o,s){const i=r(t,n)*n,a=void 0===s?0:(r(Math.min(s-1+o,t),n)+1)*n;return i*e.perTokenBytes+e.slidingLayers*a*e.slidingPerTokenBytes+e.stateBytes}var a=o(8156);const d=2*s.j9,c=5.6*s.j9,l=4*s.j9;function m(e,t,o){const n=e.weights?(0,s.$N)(e.weights,t.layers.length,e.tp,e.pp,e.args.mtp):void 0;if(!n)return"the weights’ sizes (no weights listing, no safetensors headers and no index total_size were readable)";const r=(c=o?.unified??!0,l=o?.unified?void 0:o?.totalBytes,c||void 0===l||l<70*s.j9?{maxNumSeqs:256,maxNumBatchedTokens:2048}:l>=160*s.j9?{maxNumSeqs:1024,maxNumBatchedTokens:16384}:{maxNumSeqs:1024,maxNumBatchedTokens:8192});var c,l;const m=e.args.maxNumSeqs??r.maxNumSeqs,p=e.args.maxNumBatchedTokens??r.maxNumBatchedTokens,u=e.args.maxModelLen??t.maxPositionEmbeddings;if(void 0===u)return"max-model-len (neither --max-model-len in vllm.args nor max_position_embeddings in config.json)";const f=(0,a.Bv)(e.args.kvCacheDtype,t.dtypeBytes),h=function(e,t){const o=((e,t,o)=>{const s=e.attention;return s?Math.max(1,Math.floor(s.kvHeads/t))*(s.headDim+s.headDimV)*o:0})(e,t.tp,t.kvBytes),n=e.mla?(e.mla.kvLoraRank+e.mla.ropeHeadDim)*t.kvBytes:0,r=((e,t)=>{const o=e.linear;return o?(2*o.keyHeads*o.keyHeadDim+o.valueHeads*o.valueHeadDim)/t*(o.convKernel-1)*e.dtypeBytes+o.valueHeads/t*o.valueHeadDim*o.keyHeadDim*(e.ssmDtypeBytes??e.dtypeBytes):0})(e,t.tp),i=((e,t)=>{const o=e.mamba;return o?(o.heads*o.headDim+2*o.groups*o.stateSize)/t*(o.convKernel-1)*e.dtypeBytes+o.heads/t*o.headDim*o.stateSize*(e.ssmDtypeBytes??e.dtypeBytes):0})(e,t.tp);return((e,t)=>{const o=(0,s.AK)(e.layers.length,t);let n=0;return o.map(t=>{const o=e.layers.slice(n,n+t);return n+=t,[...o]})})(e,t.pp).map(e=>{const t=t=>e.filter(e=>e===t).length,s={};for(const t of e)s[t]=(s[t]??0)+1;return{perTokenBytes:t("full")*o+t("mla")*n,slidingPerTokenBytes:o,slidingLayers:t("sliding"),stateBytes:t("linear")*r+t("mamba")*i,layerCounts:s}}).reduce((e,t)=>t.perTokenBytes+t.stateBytes>e.perTokenBytes+e.stateBytes?t:e)}(t,{tp:e.tp,pp:e.pp,kvBytes:f,maxNumBatchedTokens:p}),g=i(h,u,p,t.slidingWindow);return{model:t.architecture,weightsBytes:n.bytes,weightsHow:n.how,maxModelLen:u,maxModelLenFrom:void 0!==e.args.maxModelLen?"--max-model-len":"config.json's max_position_embeddings (vLLM's default)",maxNumSeqs:m,maxNumBatchedTokens:p,kvDtypeBytes:f,kvOneSequenceBytes:g,kvAllSequencesBytes:g*m,...void 0!==e.args.kvCacheMemoryBytes&&{kvCacheMemoryBytes:e.args.kvCacheMemoryBytes},activationBytes:d+m*(t.vocabSize??0)*4,cache:h}}function p(e){if(!e.model.ok)return{computed:!1,missing:[e.model.problem.message]};const t=e.model.value.shape,o=e.nodes[0],r=m(e,t,o);if("string"==typeof r)return{computed:!1,missing:[r]};const a=e.nodes.map(o=>((e,t,o,r)=>{const a=o.args.gpuMemoryUtilization??.9,m=(e=>{if(!e.unified)return{bytes:0,line:""};const t=e.hostUsedBytes??l,o=void 0!==e.hostUsedBytes?`${u(t)} the host uses now (MemTotal − MemAvailable)`:`${u(t)} for the OS and services (an allowance: nothing measured)`;return{bytes:t+c,line:`host reserve ${u(t+c)} = ${o} + ${u(c)} for vLLM's host-side processes`}})(t),p=void 0!==e.kvCacheMemoryBytes,v=p?e.weightsBytes+e.kvCacheMemoryBytes+e.activationBytes:Math.floor(a*t.totalBytes),y=p?e.kvCacheMemoryBytes:v-e.weightsBytes-e.activationBytes,k=e.kvOneSequenceBytes,_=y>0?Math.floor(y/k):0,b=[`weights ${u(e.weightsBytes)} per GPU (${e.weightsHow})`,`KV cache ${u(k)} per sequence of ${e.maxModelLen} tokens (${e.maxModelLenFrom}; ${h(e)}); × max-num-seqs ${e.maxNumSeqs} = ${u(e.kvAllSequencesBytes)}`,`activation/graph reserve ${u(e.activationBytes)} (an allowance of ${u(d)} + the sampler's logits)`,p?`vLLM claims ${u(v)} = weights + --kv-cache-memory-bytes ${u(e.kvCacheMemoryBytes)} + reserve`:`vLLM claims ${u(v)} = gpu-memory-utilization ${a} × ${u(t.totalBytes)}; the KV cache gets ${u(Math.max(0,y))} of it`,...m.line?[m.line]:[],t.unified?`${u(v)} + ${u(m.bytes)} = ${u(v+m.bytes)} of ${u(t.totalBytes)} unified memory (${t.source})`:`${u(v)} of ${u(t.totalBytes)} on each GPU (${t.source})`,`the KV cache holds ${_} sequence${1===_?"":"s"} of ${e.maxModelLen} tokens at once`],N=(e=>{const{fp:t,n:o}=e,r=[],a=o.unified?o.totalBytes-e.host:o.totalBytes;if(e.claim>a){const s=f(a/o.totalBytes),n=Math.floor(a-t.weightsBytes-t.activationBytes);r.push({code:"MODEL_DOES_NOT_FIT",severity:"error",node:o.node,message:o.unified?`${o.node}: vLLM would claim ${u(e.claim)} of its ${u(o.totalBytes)} unified memory and leave the host ${u(o.totalBytes-e.claim)}, less than the ${u(e.host)} it needs: the host wedges or resets instead of vLLM failing cleanly.`:`${o.node}: vLLM would claim ${u(e.claim)} on a GPU of ${u(o.totalBytes)}.`,evidence:g(e),fix:n>t.kvOneSequenceBytes?`Size the KV cache in bytes: vllm.kvCacheMemoryBytes: ${n} (${u(n)}), or lower --gpu-memory-utilization in vllm.args to ${s}.`:`The weights leave no room for a KV cache on ${o.node}: spread the model over more GPUs (tensorParallelSize/pipelineParallelSize) or serve a smaller quantisation.`})}const d=Math.min(e.kvBudget,a-t.weightsBytes-t.activationBytes);return e.kvBudget<t.kvOneSequenceBytes?r.push(((e,t)=>{const{fp:o,n:r}=e,a=t>0?((e,t,o,s,r,a)=>{const d=o=>1*i(e,o,s,r)<=t;if(!d(n))return 0;let c=n,l=Math.max(a,n);if(d(l))return l;for(;l-c>1;){const e=Math.floor((c+l)/2);d(e)?c=e:l=e}return c>=1024?c-c%1024:c-c%n})(o.cache,t,0,o.maxNumBatchedTokens,e.shape.slidingWindow,o.maxModelLen):0,d=(e=>{const t=e.input.nodes.reduce((e,t)=>e+t.gpus,0);for(let o=e.input.tp+1;o*e.input.pp<=t;o++){const t=e.input.weights?(0,s.$N)(e.input.weights,e.shape.layers.length,o,e.input.pp,e.input.args.mtp):void 0;if(t&&t.bytes+e.fp.activationBytes+e.fp.kvOneSequenceBytes/(o/e.input.tp)<e.claim)return o}})(e),c=[a>0?`lower --max-model-len in vllm.args to ${a} (the longest that fits one sequence)`:"",void 0!==d?`raise tensorParallelSize to ${d}`:"",t<=0?"serve a smaller quantisation: the weights alone leave no room":""].filter(e=>""!==e);return{code:"MODEL_DOES_NOT_FIT",severity:"error",node:r.node,message:`${r.node}: one sequence of ${o.maxModelLen} tokens needs ${u(o.kvOneSequenceBytes)} of KV cache, and ${e.kvBudget>0?`only ${u(e.kvBudget)} is left for it`:"nothing is left for it"} after ${u(o.weightsBytes)} of weights: vLLM refuses to start ("larger than the available KV cache memory").`,evidence:g(e),fix:`${c.join("; or ")}.`}})(e,d)):e.sequences<t.maxNumSeqs&&0===r.length&&r.push({code:"KV_CACHE_CONCURRENCY",severity:"info",node:o.node,message:`${o.node}: the KV cache holds ${e.sequences} sequences of ${t.maxModelLen} tokens at once, fewer than max-num-seqs ${t.maxNumSeqs}: longer requests queue (vLLM preempts), shorter ones share.`,evidence:g(e),fix:`Nothing to do if ${e.sequences} long requests at once are enough; else lower --max-model-len or use --kv-cache-dtype fp8 in vllm.args.`}),r})({fp:e,n:t,input:o,shape:r,claim:v,kvBudget:y,host:m.bytes,sequences:_,lines:b,util:a});return{node:t.node,memory:t,fits:!N.some(e=>"error"===e.severity),claimBytes:v,kvBudgetBytes:y,hostReserveBytes:m.bytes,sequencesAtMaxLen:_,lines:b,findings:N}})(r,o,e,t));return{computed:!0,footprint:r,nodes:a,sources:[e.model.value.source,e.weights?.source??""].filter(e=>""!==e)}}const u=s.Kk,f=e=>Math.floor(100*e)/100;function h(e){const t=e.cache.layerCounts;return`${[t.full?`${t.full} full-attention layers`:"",t.sliding?`${t.sliding} sliding-window layers`:"",t.mla?`${t.mla} MLA layers`:"",t.linear?`${t.linear} linear-attention layers (fixed state)`:"",t.mamba?`${t.mamba} Mamba layers (fixed state)`:""].filter(e=>""!==e).join(", ")}; KV dtype ${e.kvDtypeBytes} byte${1===e.kvDtypeBytes?"":"s"}`}const g=e=>Object.fromEntries(e.lines.map((e,t)=>[`${t+1}`,e]));function v(e){if(!e.computed)return[`Fit before launch: not computed, missing ${e.missing.join("; ")}`];const t=e.footprint,o=[`Fit before launch (${t.model}; ${e.sources.join("; ")}):`,`  per GPU: weights ${u(t.weightsBytes)}, KV cache ${u(t.kvOneSequenceBytes)} per sequence of ${t.maxModelLen} tokens (× max-num-seqs ${t.maxNumSeqs} = ${u(t.kvAllSequencesBytes)}), activation/graph reserve ${u(t.activationBytes)}`];0===e.nodes.length&&o.push("  verdict: not given, nothing says what the nodes have (set fit.nodeMemory, or run preflight, which reads each node)");for(const t of e.nodes){o.push(`  ${t.node}: ${t.fits?"fits":"DOES NOT FIT"}`);for(const e of t.lines)o.push(`    ${e}`)}return o}},7120:(e,t,o)=>{o.d(t,{JQ:()=>m});var s=o(3024),n=o(8161),r=o(6760),i=o(9760);const a=1e8,d=/^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/,c=/^[0-9a-f]{40}$/;function l(e){const t=(0,s.openSync)(e,"r");try{const e=Buffer.alloc(8);if(8!==(0,s.readSync)(t,e,0,8,0))return;const o=Number(e.readBigUInt64LE(0));if(o<=0||o>a)return;const n=Buffer.alloc(o);return(0,s.readSync)(t,n,0,o,8)===o?n.toString("utf8"):void 0}finally{(0,s.closeSync)(t)}}function m(e,t,o){const a=function(e,t,o){const i=e.model?.source;if(i?.runner)return{dir:(0,r.resolve)((0,r.dirname)(t),i.runner.dir)};if(i?.nodes)return{missing:`config.json: model.source.nodes keeps the files on the nodes only (${e.model?.path}); the deploy's fit stage reads it from the head`};const a=i?.hub?.repo??(d.test(e.vllm.model)?e.vllm.model:void 0);if(!a)return{missing:`config.json: vllm.model ${e.vllm.model} is a path inside the container, not readable on the runner; with a model: section the deploy's fit stage reads the head's copy`};const l=i?.hub?.revision??"main",m=(e=>e.HF_HUB_CACHE?e.HF_HUB_CACHE:e.HF_HOME?(0,r.join)(e.HF_HOME,"hub"):(0,r.join)(e.XDG_CACHE_HOME??(0,r.join)((0,n.homedir)(),".cache"),"huggingface","hub"))(o),p=(0,r.join)(m,`models--${a.replace("/","--")}`),u=(0,r.join)(p,"refs",l),f=c.test(l)?l:(0,s.existsSync)(u)?(0,s.readFileSync)(u,"utf8").trim():void 0,h=f?(0,r.join)(p,"snapshots",f):void 0;return h&&(0,s.existsSync)((0,r.join)(h,"config.json"))?{dir:h}:{missing:`config.json of ${a}@${l}: not in the runner's hub cache (${p}); download it there (hf download ${a} config.json model.safetensors.index.json) or give the model a model: section, whose copy on the head the deploy's fit stage reads`}}(e,t,o);if(!a.dir)return{missing:a.missing??"config.json"};const m=(0,r.join)(a.dir,"config.json");if(!(0,s.existsSync)(m))return{missing:`config.json: not in ${a.dir}`};try{const e=(e=>{const t=(0,s.readdirSync)(e).filter(e=>e.endsWith(".safetensors"));if(t.length>0){const o=[];let n=!0,a=0;for(const d of t){a+=(0,s.statSync)((0,r.join)(e,d)).size;const t=n?l((0,r.join)(e,d)):void 0,c=void 0===t?void 0:(0,i.sV)(t,d);c?.ok?o.push(...c.value):n=!1}return{fileBytes:a,...n&&{tensors:o},source:`${t.length} safetensors files in ${e}`}}const o=(0,r.join)(e,"model.safetensors.index.json");if(!(0,s.existsSync)(o))return;const n=JSON.parse((0,s.readFileSync)(o,"utf8")).metadata?.total_size;return"number"==typeof n?{fileBytes:n,source:`${o}'s metadata.total_size`}:void 0})(a.dir);return{config:{text:(0,s.readFileSync)(m,"utf8"),path:m},...e&&{weights:e}}}catch(e){return{missing:`the model's files in ${a.dir}: ${e.message}`}}}},7198:(e,t,o)=>{o.d(t,{Wh:()=>b,uy:()=>_,E:()=>N,Nh:()=>w,Ii:()=>y,ut:()=>v});var s=o(1628),n=o(8275),r=o(1280),i=o(7655);const a={float32:4,float:4,float16:2,half:2,bfloat16:2,float8_e4m3fn:1,float8_e5m2:1},d=e=>"object"==typeof e&&null!==e&&!Array.isArray(e),c=(e,t)=>{const o=e[t];return"number"==typeof o&&Number.isFinite(o)&&o>=0?o:void 0},l=(e,t)=>({code:"MODEL_CONFIG_UNREADABLE",message:`${e}: ${t}`,evidence:{"config.json":e},fix:`Check ${e}: it must be the model's Hugging Face config.json (the file vLLM reads).`}),m=e=>d(e.text_config)?{...e,...e.text_config}:e,p={full_attention:"full",attention:"full",sliding_attention:"sliding",linear_attention:"linear",mamba:"mamba"},u={M:"mamba","*":"full","-":"none",E:"none"};function f(e,t){if(!d(e))return(0,s.f)(l(t,"not a JSON object"));const o=m(e),n=c(o,"num_hidden_layers"),r=c(o,"hidden_size");if(void 0===n||0===n)return(0,s.f)(l(t,"no num_hidden_layers"));if(void 0===r)return(0,s.f)(l(t,"no hidden_size"));const i=((e,t,o)=>{const n=e.layer_types;if(Array.isArray(n)){const e=n.map(e=>"string"==typeof e?p[e]:void 0),r=n.find((t,o)=>void 0===e[o]);return void 0!==r?(0,s.f)(l(o,`layer_types holds ${JSON.stringify(r)}, a layer kind the fit does not know`)):(0,s.ok)(e.slice(0,t))}const r=e.hybrid_override_pattern;if("string"==typeof r){const e=[...r].map(e=>u[e]);return e.some(e=>void 0===e)?(0,s.f)(l(o,`hybrid_override_pattern ${JSON.stringify(r)} holds a layer kind the fit does not know`)):(0,s.ok)(e)}const i=c(e,"full_attention_interval");if(void 0!==i&&i>0&&void 0!==c(e,"linear_num_value_heads"))return(0,s.ok)(Array.from({length:t},(e,t)=>(t+1)%i===0?"full":"linear"));if(void 0!==c(e,"kv_lora_rank"))return(0,s.ok)(Array.from({length:t},()=>"mla"));const a=c(e,"sliding_window"),d=c(e,"sliding_window_pattern");return void 0!==a&&!1!==e.use_sliding_window?void 0!==d&&d>0?(0,s.ok)(Array.from({length:t},(e,t)=>(t+1)%d===0?"full":"sliding")):(0,s.ok)(Array.from({length:t},()=>"sliding")):(0,s.ok)(Array.from({length:t},()=>"full"))})(o,n,t);if(!i.ok)return i;const f=((e,t)=>{const o=e.torch_dtype??e.dtype;if(void 0===o)return(0,s.ok)({name:"bfloat16 (assumed: config.json names no dtype)",bytes:2});const n="string"==typeof o?a[o]:void 0;return void 0===n?(0,s.f)(l(t,`dtype ${JSON.stringify(o)} is not one the fit knows`)):(0,s.ok)({name:o,bytes:n})})(o,t);if(!f.ok)return f;const h=function(e,t,o,n){const r=e=>t.includes(e),i={};if(r("full")||r("sliding")){const t=c(e,"num_attention_heads");if(void 0===t||0===t)return(0,s.f)(l(n,"no num_attention_heads"));const r=c(e,"head_dim")??o/t;i.attention={kvHeads:c(e,"num_key_value_heads")??t,headDim:r,headDimV:c(e,"v_head_dim")??r}}if(r("sliding")){const t=c(e,"sliding_window");if(void 0===t)return(0,s.f)(l(n,"sliding-window layers but no sliding_window"));i.slidingWindow=t}if(r("mla")){const t=c(e,"kv_lora_rank"),o=c(e,"qk_rope_head_dim");if(void 0===t||void 0===o)return(0,s.f)(l(n,"MLA layers but no kv_lora_rank / qk_rope_head_dim"));i.mla={kvLoraRank:t,ropeHeadDim:o}}if(r("linear")){const t=(e=>{const t=c(e,"linear_num_key_heads"),o=c(e,"linear_num_value_heads"),s=c(e,"linear_key_head_dim"),n=c(e,"linear_value_head_dim"),r=c(e,"linear_conv_kernel_dim");if(void 0!==t&&void 0!==o&&void 0!==s&&void 0!==n&&void 0!==r)return{keyHeads:t,valueHeads:o,keyHeadDim:s,valueHeadDim:n,convKernel:r}})(e);if(!t)return(0,s.f)(l(n,"linear-attention layers but not all of linear_num_key_heads, linear_num_value_heads, linear_key_head_dim, linear_value_head_dim, linear_conv_kernel_dim"));i.linear=t}if(r("mamba")){const t=(e=>{const t=c(e,"mamba_num_heads"),o=c(e,"mamba_head_dim"),s=c(e,"n_groups"),n=c(e,"ssm_state_size"),r=c(e,"conv_kernel");if(void 0!==t&&void 0!==o&&void 0!==s&&void 0!==n&&void 0!==r)return{heads:t,headDim:o,groups:s,stateSize:n,convKernel:r}})(e);if(!t)return(0,s.f)(l(n,"Mamba layers but not all of mamba_num_heads, mamba_head_dim, n_groups, ssm_state_size, conv_kernel"));i.mamba=t}return(0,s.ok)(i)}(o,i.value,r,t);if(!h.ok)return h;const g=e.architectures,v=Array.isArray(g)&&"string"==typeof g[0]?g[0]:String(o.model_type??"unknown"),y=o.mamba_ssm_dtype,k=c(o,"vocab_size"),_=c(o,"max_position_embeddings");return(0,s.ok)({architecture:v,dtype:f.value.name,dtypeBytes:f.value.bytes,..."string"==typeof y&&void 0!==a[y]&&{ssmDtypeBytes:a[y]},hiddenSize:r,...void 0!==k&&{vocabSize:k},...void 0!==_&&{maxPositionEmbeddings:_},layers:i.value,...h.value})}var h=o(8156);const g=1048576;function v(e){const t=e.fit.nodeMemory;return t?e.nodes.filter(e=>e.gpus>0).map(e=>({node:e.name,unified:t.unified,totalBytes:t.bytes,gpus:e.gpus,source:"fit.nodeMemory in the manifest"})):[]}function y(e,t){return t.nodes.flatMap(t=>{const o=e.nodes.find(e=>e.node===t.name&&e.ok),s=o?.host,n=o?.gpus[0];if(!o||0===t.gpus)return[];if(s?.unifiedMemory){const e=void 0!==n?.memoryTotalMiB?n.memoryTotalMiB*g:s.memTotalBytes;if(void 0===e)return[];const r=o.container?.running||void 0===s.memTotalBytes||void 0===s.memAvailableBytes?void 0:s.memTotalBytes-s.memAvailableBytes,i=void 0!==n?.memoryTotalMiB?"nvidia-smi memory.total":"/proc/meminfo MemTotal";return[{node:t.name,unified:!0,totalBytes:e,gpus:t.gpus,source:i,...void 0!==r&&{hostUsedBytes:r}}]}return void 0===n?.memoryTotalMiB?[]:[{node:t.name,unified:!1,totalBytes:n.memoryTotalMiB*g,gpus:t.gpus,source:`nvidia-smi memory.total (${n.name??"GPU"})`}]})}function k(e){if(!e.config)return(0,s.f)((0,s.C)("MODEL_FIT_UNKNOWN",e.missing??"config.json"));const t=((e,t)=>{let o;try{o=JSON.parse(e)}catch(e){return(0,s.f)(l(t,`not JSON (${e.message})`))}return f(o,t)})(e.config.text,e.config.path);return t.ok?(0,s.ok)({shape:t.value,source:e.config.path}):(0,s.f)((0,s.C)("MODEL_FIT_UNKNOWN",t.problem.message))}function _(e,t,o){const s=(0,h.tm)([...void 0!==e.vllm.kvCacheMemoryBytes?["--kv-cache-memory-bytes",String(e.vllm.kvCacheMemoryBytes)]:[],...e.vllm.args]);return(0,i.h2)({model:k(t),weights:t.weights,args:s,tp:e.vllm.tensorParallelSize,pp:e.vllm.pipelineParallelSize,nodes:o})}function b(e,t,o={}){return e.computed?e.nodes.flatMap(e=>e.findings):o.unknownAsFinding?[{code:"MODEL_FIT_UNKNOWN",severity:"info",node:null,message:`${t}: the model's footprint cannot be computed, so whether it fits is not checked: missing ${e.missing.join("; ")}.`,evidence:{Missing:e.missing.join("; ")},fix:"Make the missing input readable (see the message), or set vllm.kvCacheMemoryBytes and --max-model-len from a measured start."}]:[]}function N(e,t,o){if(void 0===e.vllm.kvCacheMemoryBytes)return;const s=(0,n.GJ)(t.version);if(s?.flags.flags.includes("--kv-cache-memory-bytes"))return;const r=n.SK[0].vllm;return{code:"KV_BYTES_FLAG_UNKNOWN",severity:o,node:null,message:s?`vllm.kvCacheMemoryBytes is passed as --kv-cache-memory-bytes, which \`vllm serve\` of vLLM ${t.version} (${t.from}) does not have: it would stop with "unrecognized arguments".`:`vllm.kvCacheMemoryBytes is passed as --kv-cache-memory-bytes, and vLLM ${t.version} (${t.from}) is older than every release whose flags are known here (${r} and later): it cannot be shown to have the flag.`,evidence:{"vLLM release":`${t.version} (${t.from})`,"Flags known from":s?s.vllm:`${r} on`},fix:`Use an image whose vLLM has --kv-cache-memory-bytes (${r} and later do), or remove vllm.kvCacheMemoryBytes and size the KV cache with --gpu-memory-utilization.`}}function w(e){const t=(0,r.p)(e),o=t?N(e,t,"warning"):void 0;return o?[o]:[]}},8156:(e,t,o)=>{function s(e,t){const o=`--${t.slice(2).replaceAll("-","_")}`;let s;return e.forEach((n,r)=>{for(const i of[t,o])n===i&&r+1<e.length?s=e[r+1]:n.startsWith(`${i}=`)&&(s=n.slice(i.length+1))}),s}o.d(t,{Bv:()=>i,tm:()=>r});const n=(e,t)=>e.some(e=>e===t||e.startsWith(`${t}=`));function r(e){const t=t=>{const o=s(e,t),n=void 0===o?void 0:(e=>{const t=/^\s*(\d+(?:\.\d+)?)\s*([kmgtKMGT]?)\s*$/.exec(e);if(!t)return;const[,o,s]=t,n=Number(o);if(!s)return Number.isInteger(n)?n:void 0;const r="kmgt".indexOf(s.toLowerCase())+1;return s===s.toUpperCase()?Number.isInteger(n)?n*1024**r:void 0:Math.round(n*1e3**r)})(o);return void 0!==n&&n>0?n:void 0},o=Number(s(e,"--gpu-memory-utilization")),r=s(e,"--kv-cache-dtype"),i=s(e,"--speculative-config")??"",a=t("--max-model-len"),d=t("--max-num-seqs"),c=t("--max-num-batched-tokens"),l=t("--kv-cache-memory-bytes");return{...void 0!==a&&{maxModelLen:a},...void 0!==d&&{maxNumSeqs:d},...void 0!==c&&{maxNumBatchedTokens:c},...void 0!==r&&{kvCacheDtype:r},...void 0!==l&&{kvCacheMemoryBytes:l},...Number.isFinite(o)&&o>0&&o<=1&&{gpuMemoryUtilization:o},mtp:/mtp/i.test(i),enforceEager:n(e,"--enforce-eager")}}function i(e,t){const o=(e??"auto").toLowerCase();return"auto"===o?t:o.startsWith("fp8")||o.startsWith("float8")||"int8"===o?1:"float32"===o?4:o.includes("fp4")||o.includes("nvfp4")?.5:2}},9760:(e,t,o)=>{o.d(t,{$N:()=>l,AK:()=>i,Kk:()=>p,j9:()=>m,sV:()=>n});var s=o(1628);function n(e,t){let o;try{o=JSON.parse(e)}catch(e){return(0,s.f)(r(t,`the header is not JSON (${e.message})`))}if("object"!=typeof o||null===o)return(0,s.f)(r(t,"the header is not an object"));const n=[];for(const[e,i]of Object.entries(o)){if("__metadata__"===e)continue;const o=i,a=o?.data_offsets;if(!Array.isArray(a)||2!==a.length||!Array.isArray(o.shape))return(0,s.f)(r(t,`tensor ${e} has no shape or data_offsets`));const[d,c]=a;if("number"!=typeof d||"number"!=typeof c||c<d)return(0,s.f)(r(t,`tensor ${e} has bad data_offsets`));n.push({name:e,bytes:c-d,dims:o.shape.length})}return(0,s.ok)(n)}const r=(e,t)=>({code:"MODEL_CONFIG_UNREADABLE",message:`${e}: ${t}`,evidence:{File:e},fix:`Check ${e}: a safetensors file starts with an 8-byte little-endian length and a JSON header.`});function i(e,t){const o=Array.from({length:t},()=>Math.floor(e/t)),s=e%t;for(let e=2;e<s+2;e++)o[t-e]=(o[t-e]??0)+1;return o}const a=/(?:^|\.)layers\.(\d+)\./;function d(e,t,o){const s=a.exec(e);return s?t(Number(s[1])):/(?:^|\.)lm_head\.|(?:^|\.)model\.norm\.|(?:^|\.)language_model\.norm\.|^norm\./.test(e)?o:0}const c=e=>/(?:^|\.)mtp\./.test(e);function l(e,t,o,s,n){return e.tensors&&e.tensors.length>0?((e,t,o,s,n)=>{const r=i(t,s),a=r.map((e,t)=>r.slice(0,t).reduce((e,t)=>e+t,0)),l=e=>{for(let t=s-1;t>=0;t--)if(e>=(a[t]??0))return t;return 0},m=Array.from({length:s},()=>0);let u=0;for(const t of e){if(c(t.name)&&!n){u+=t.bytes;continue}const e=d(t.name,l,s-1);m[e]=(m[e]??0)+(t.dims>=2?t.bytes/o:t.bytes)}const f=e.reduce((e,t)=>e+t.bytes,0),h=Math.ceil(m.reduce((e,t)=>Math.max(e,t),0)),g=u>0?`; ${p(u)} of mtp.* tensors left out (no MTP speculative config)`:"";return{bytes:h,totalBytes:f,how:`${e.length} tensors from the safetensors headers, placed by layer over PP ${s} and split over TP ${o}${g}`}})(e.tensors,t,o,s,n):void 0!==e.fileBytes?{bytes:Math.ceil(e.fileBytes/(o*s)),totalBytes:e.fileBytes,how:`the files' ${p(e.fileBytes)} split evenly over TP ${o} × PP ${s} (${e.source}; no tensor headers read, so mtp.* and replicated tensors are not told apart)`}:void 0}const m=1024**3,p=e=>`${(e/m).toFixed(2)} GiB`},568:(e,t,o)=>{o.d(t,{V3:()=>u,pc:()=>f,iN:()=>p});var s=o(869),n=o(8725),r=o(3758),i=o(1628),a=o(1642);const d=e=>(0,i.f)((0,i.C)("PROBE_OUTPUT_INVALID",e));var c=o(1588),l=o(2813),m=o(9213);function p(e,t){const o=(e=>{let t;try{t=JSON.parse(e.trim().split("\n").pop()??"")}catch{return d(`the facts probe printed no JSON: ${e.slice(-300)}`)}const o=(0,r.s)(a.xt,t);return o.ok?o:d(`the facts probe's output does not fit its schema: ${o.problem.message}`)})(t);if(!o.ok)return{facts:u(e,o.problem.message),notes:[]};const{errors:s,container:n,rayNodes:i,rayError:c,rayStatus:m,...p}=o.value,f={node:e.name,sshHost:e.ssh.host,ok:!0,...p,...n&&{container:n}},h=`ray.nodes() in ${e.name}'s container`;let g;"head"===e.role&&(void 0!==i?g={...(0,l.$)(JSON.stringify(i)),source:h}:void 0!==c?g={source:h,nodes:[],error:c}:!1===p.host?.docker?.ok?g={source:h,nodes:[],error:`docker does not work on the head: ${p.host.docker.error??""}`}:n?.running||(g={source:h,nodes:[],error:`container ${n?.name??"(none)"} is not running on the head`}));const v="head"===e.role?m:void 0;return{facts:f,...g&&{ray:g},...v&&{rayStatus:v},notes:s}}const u=(e,t)=>({node:e.name,sshHost:e.ssh.host,ok:!1,error:t,interfaces:[],peers:[],gpus:[]});async function f(e,t){const o=[];let r,i;const a=await Promise.all(e.nodes.map(async a=>{const d=await t.transportFor(a);if(!d.ok)return u(a,d.problem.message);const l=d.value;{const d=(0,n.HA)(t.hostFacts?.nodes.find(e=>e.node===a.name)),m=(0,n.CL)(e,a,d?{knownHost:d}:{}),f=await l.run(m.cmd,{stdin:m.stdin,timeoutMs:1e3*(0,s.uR)(e.ssh,n.lL)});if(0!==f.code)return u(a,`facts probe on ${l.label}: ${(0,c.bu)(f)}: ${(f.stderr||f.stdout).trim().slice(-500)}`);const h=p(a,f.stdout);h.ray&&(r=h.ray),h.rayStatus&&(i=h.rayStatus);for(const e of h.notes.map(e=>({node:a.name,note:e})))o.push(e);return t.onProgress?.(`${a.name}: facts gathered in ${(f.durationMs/1e3).toFixed(1)} s`),h.facts}})),d={schemaVersion:1,gatheredAt:(new Date).toISOString(),cluster:e.cluster,nodes:a,...r&&{ray:r}};return{facts:r&&!r.error&&i?(0,m.O)(d,(0,m.F)(r,void 0,i)):d,notes:o}}},1046:(e,t,o)=>{o.d(t,{Oz:()=>l});var s=o(3778),n=o(6902),r=o(9961),i=o(1588);const a=(e,t)=>t.exec(e)?.[1]?.trim();function d(e,t=8){return e.split("\n").map(e=>e.trimEnd()).filter(e=>""!==e&&!e.startsWith(r.BN)).slice(-t).join("\n").slice(-1500)}const c=e=>1e3*((0,r.ti)(e)+s.VJ+15);async function l(e,t,o){const l=Date.now(),m=(0,n.Uo)(e),p=o.timeoutSeconds??e.preflight.collectiveTimeoutSeconds,u=o.bytes??s.tw,f=e.container.env.NCCL_IB_HCA,h={image:o.image,addr:m.fabricIp,bytes:u,timeoutSeconds:p,...void 0!==f&&{ibHca:f}},g=e=>o.onProgress?.(e),v=t.get(m.name),y=v?await v.run((0,s.ov)(m.fabricIp),{timeoutMs:2e4}):void 0,k=y&&(0,i.gq)(y)?Number(y.stdout.trim()):Number.NaN;if(!Number.isInteger(k)||k<=0){const t=y?`no free port on ${m.fabricIp}: ${(0,i.bu)(y)} ${y.stderr.trim().slice(-200)}`:"no connection to the head",o=e.nodes.map((e,o)=>({node:e.name,rank:o,fabricIp:e.fabricIp,error:t,tail:""}));return{...h,port:0,ranks:o,durationMs:Date.now()-l}}g(`fabric-test: an all-reduce on ${e.nodes.length} nodes at once, rendezvous ${m.fabricIp}:${k}`);const _=await Promise.all(e.nodes.map(async(n,l)=>{const f=t.get(n.name);if(!f)return{node:n.name,rank:l,fabricIp:n.fabricIp,error:"no connection to this node",tail:""};const h=(0,s.Bl)(e,n,o.image,{rank:l,world:e.nodes.length,addr:m.fabricIp,port:k,ip:n.fabricIp,bytes:u,iters:s.di,timeout:p});g(`[${n.name}] fabric-test: rank ${l} of ${e.nodes.length} in a throw-away container of the release image`);const v=Date.now(),y=await f.run(h,{timeoutMs:c(p),...o.signal&&{signal:o.signal}}),_=function(e,t,o,s){const n=(0,r.T4)(o),i=/NCCL (INFO|WARN)/.test(o)?(e=>{const t=[...e.matchAll(/NCCL WARN (.+)$/gm)].map(e=>(e[1]??"").trim()),o=a(e,/NCCL INFO NCCL version (\S+)/),s=a(e,/NCCL INFO Using network (\S+)/),n=a(e,/NCCL INFO NCCL_IB_HCA set (?:by environment )?to (\S+)/),r=a(e,/NCCL INFO NCCL_SOCKET_IFNAME set (?:by environment )?to (\S+)/),i=a(e,/NCCL INFO NET\/Socket : Using (.+)$/m);return{...o&&{version:o},...s&&{network:s},...n&&{ibHca:n},...r&&{socketIfname:r},ibNoDevice:/NCCL INFO NET\/IB : No device found/.test(e),...i&&{socketInterfaces:i},warnings:t}})(o):void 0;return{node:e.name,rank:t,fabricIp:e.fabricIp,...n.line&&{line:n.line},...!n.line&&{error:s?`${s} (${n.error})`:n.error??"no result"},tail:d(o),...i&&{nccl:i}}}(n,l,`${y.stdout}\n${y.stderr}`,(0,i.gq)(y)?void 0:`docker run ${(0,i.bu)(y)}`),b=_.line;return g(`[${n.name}] fabric-test: ${b?.ok?`ok in ${((Date.now()-v)/1e3).toFixed(1)} s: rank ${l}, ${(0,r.il)(b)}, ${"number"==typeof b.bytes?`${(0,r.jO)(b.bytes)} all-reduced, `:""}${(1e3*(b.seconds??0)).toFixed(0)} ms per all-reduce${b.busbwGBps?`, bus ${b.busbwGBps.toFixed(2)} GB/s`:""}${_.nccl?.network?`, NCCL network ${_.nccl.network}`:""}`:`FAILED: rank ${l}: ${b?.error??_.error}`}`),_})),b={...h,port:k,ranks:_,durationMs:Date.now()-l};return g((e=>{const t=e.ranks.filter(e=>e.line?.ok),o=e.ranks.length-t.length,s=[...new Set(t.map(e=>(0,r.il)(e.line)))],n=[...new Set(t.flatMap(e=>"number"==typeof e.line?.bytes?[(0,r.jO)(e.line.bytes)]:[]))],i=t.length>0?`all-reduce of ${n.join(" / ")||"an unreported size"} over ${s.join(" / ")} on ${t.length} of ${e.ranks.length} nodes`:"";if(0===o)return`fabric-test: ${i}`;const a=`${o} of ${e.ranks.length} ranks failed (${e.ranks.filter(e=>!e.line?.ok).map(e=>e.node).join(", ")})`;return"fabric-test: "+(t.length>0?`${i}; ${a}`:`no all-reduce completed: ${a}`)})(b)),b}},6292:(e,t,o)=>{o.d(t,{k:()=>s});const s=String.raw`
def docker_api(path, timeout=10):
    import json as _json, os as _os, socket as _socket
    if _os.environ.get("DOCKER_CONTEXT"):
        return None
    if not any(_os.access(_os.path.join(d, "docker"), _os.X_OK) for d in _os.get_exec_path()):
        return None
    host = _os.environ.get("DOCKER_HOST", "")
    if host and not host.startswith("unix://"):
        return None
    try:
        with open(_os.path.join(_os.environ.get("DOCKER_CONFIG") or _os.path.expanduser("~/.docker"), "config.json")) as f:
            ctx = _json.load(f).get("currentContext")
        if ctx and ctx != "default":
            return None
    except FileNotFoundError:
        pass
    except Exception:
        return None
    s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        s.settimeout(timeout)
        s.connect(host[len("unix://"):] if host else "/var/run/docker.sock")
        # HTTP/1.0: the daemon answers with the whole body and closes (no chunks, no keep-alive).
        s.sendall(("GET %s HTTP/1.0\r\nHost: docker\r\n\r\n" % path).encode())
        data = []
        while True:
            b = s.recv(1 << 16)
            if not b:
                break
            data.append(b)
        head, _, body = b"".join(data).partition(b"\r\n\r\n")
        status = head.split(b"\r\n", 1)[0].split(b" ")
        if not status[0].startswith(b"HTTP/") or b"chunked" in head.lower():
            return None
        return int(status[1]), _json.loads(body)
    except Exception:
        return None
    finally:
        s.close()
`},8725:(e,t,o)=>{o.d(t,{oO:()=>p,lL:()=>m,HA:()=>u,CL:()=>h});var s=o(3999),n=o(6292);const r=String.raw`
import json, os, platform, re, socket, glob
versions = {"python": platform.python_version()}
out = {"versions": versions}
# The installed distribution's version, read from its metadata: importing ray costs about a second of
# CPU per node (and a real vllm imports torch), while the metadata is what __version__ holds. The
# import stays as the fallback for a package without metadata (a source tree on PYTHONPATH).
try:
    from importlib.metadata import version as dist_version
except Exception:
    dist_version = None
def meta(name):
    try:
        return dist_version(name)
    except Exception:
        return None
for mod in ("ray", "vllm"):
    v = meta(mod)
    if v is None:
        try:
            m = __import__(mod)
            v = getattr(m, "__version__", "unknown")
        except Exception as e:
            out.setdefault("importErrors", {})[mod] = type(e).__name__
    if v is not None:
        versions[mod] = v
# torch and the NCCL its wheel links (nvidia-nccl-cu12/cu13), from metadata only: no import.
for key, names in (("torch", ("torch",)), ("nccl", ("nvidia-nccl-cu13", "nvidia-nccl-cu12", "nvidia-nccl-cu11"))):
    for n in names:
        v = meta(n)
        if v:
            versions[key] = v
            break
# The running vllm serve (the lowest PID of its kind: the process the launch started; its children
# re-title themselves or share its argv). Its environment is what vLLM reads, where os.environ here is
# only the container's configured one.
def is_vllm_serve(argv):
    for i, a in enumerate(argv[:4]):
        if a.rsplit("/", 1)[-1] == "vllm" and argv[i + 1:i + 2] == ["serve"]:
            return True
        if a == "-m" and argv[i + 1:i + 2] == ["vllm.entrypoints.openai.api_server"]:
            return True
        if a == "-m" and argv[i + 1:i + 3] == ["vllm.entrypoints.cli.main", "serve"]:
            return True
    return False
proc = None
for pid in sorted(int(d) for d in os.listdir("/proc") if d.isdigit()):
    if pid == os.getpid():
        continue
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            argv = [a.decode("utf-8", "replace") for a in f.read().split(b"\0")]
    except Exception:
        continue
    if argv and argv[-1] == "":
        argv.pop()
    if is_vllm_serve(argv):
        # Values of secret-bearing flags (--api-key, --hf-token, ...) never leave the node.
        secret = re.compile(r"^--?[\w-]*(key|token|secret|password)$", re.I)
        shown = []
        for i, a in enumerate(argv[:400]):
            name, eq, _ = a.partition("=")
            if eq and secret.match(name):
                a = name + "=<redacted>"
            elif i > 0 and secret.match(argv[i - 1]) and "=" not in argv[i - 1]:
                a = "<redacted>"
            shown.append(a)
        proc = {"pid": pid, "argv": shown}
        try:
            with open("/proc/%d/environ" % pid, "rb") as f:
                pairs = [kv.decode("utf-8", "replace").partition("=") for kv in f.read().split(b"\0") if kv]
            proc["env"] = {k: v for k, _, v in pairs if k in ENV_NAMES}
        except Exception as e:
            proc["envError"] = "%s: %s" % (type(e).__name__, e)
        break
if proc is not None:
    # The master address and port as argparse reads them (--flag v, --flag=v, vLLM's --flag_name), for one connect.
    flags = {}
    argv = proc["argv"]
    for i, a in enumerate(argv):
        name, eq, val = a.partition("=")
        name = name.replace("_", "-") if name.startswith("--") else name
        if name in ("--master-addr", "--master-port", "--nnodes", "-n"):
            flags["--nnodes" if name == "-n" else name] = val if eq else (argv[i + 1] if i + 1 < len(argv) else "")
        elif a.startswith("-n") and a[2:].isdigit():
            flags["--nnodes"] = a[2:]
    try:
        nnodes = int(flags.get("--nnodes", "1"))
    except ValueError:
        nnodes = 1
    if nnodes > 1:
        m_ip = flags.get("--master-addr") or "127.0.0.1"
        try:
            m_port = int(flags.get("--master-port") or "29501")
        except ValueError:
            m_port = None
        if m_port is not None:
            res = {"ip": m_ip, "port": m_port}
            try:
                s = socket.create_connection((m_ip, m_port), 2)
                s.close()
                res["state"] = "open"
            except ConnectionRefusedError:
                res["state"] = "refused"
            except socket.timeout:
                res["state"], res["detail"] = "timeout", "no answer within 2 s"
            except Exception as e:
                res["state"], res["detail"] = "error", ("%s" % e)[:200]
            proc["master"] = res
    out["vllmProcess"] = proc
penv = (proc or {}).get("env")
ip = (penv if penv is not None else os.environ).get("VLLM_HOST_IP", "")
src = "VLLM_HOST_IP" if ip else "default-route"
if not ip:
    for fam, dst in ((socket.AF_INET, ("8.8.8.8", 80)), (socket.AF_INET6, ("2001:4860:4860::8888", 80))):
        try:
            s = socket.socket(fam, socket.SOCK_DGRAM)
            s.connect(dst)
            ip = s.getsockname()[0]
            s.close()
            break
        except Exception:
            pass
    if not ip:
        ip, src = "0.0.0.0", "unknown"
out["vllmIp"] = ip
out["vllmIpSource"] = src
for path in sorted(glob.glob("/tmp/ray/session_latest/node_ip_address.json*")):
    try:
        with open(path) as f:
            data = json.load(f)
        vals = [v for v in (data.values() if isinstance(data, dict) else [data]) if isinstance(v, str)]
        if vals:
            out["rayNodeIp"] = vals[0]
            break
    except Exception:
        pass
print(json.dumps(out))
`,i=String.raw`
import io, contextlib
ray_out = {}
try:
    import ray
    from ray._private.internal_api import get_state_from_address
    ray_out["nodes"] = [{"NodeID": n["NodeID"], "Alive": n["Alive"], "NodeManagerAddress": n["NodeManagerAddress"],
      "NodeManagerHostname": n.get("NodeManagerHostname"), "Resources": n.get("Resources", {})} for n in get_state_from_address("auto").node_table()]
except BaseException as e:
    ray_out["nodes_error"] = ("%s: %s" % (type(e).__name__, e))[-800:]
try:
    from ray.scripts.scripts import status as ray_status_cli
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        ray_status_cli.main(args=[], prog_name="ray status", standalone_mode=False)
    ray_out["status"] = buf.getvalue()
except BaseException as e:
    ray_out["status_error"] = ("%s: %s" % (type(e).__name__, e))[-800:]
print("@@ray " + json.dumps(ray_out))
`,a=String.raw`
import calendar, json, os, re, subprocess, sys, socket, shutil, threading, time
args = json.loads(sys.argv[1])
# Host facts another probe of this deploy already read and that a release's start does not change
# (docker's engine and runtimes, the NVIDIA container tooling, the OOM guards, the driver's CUDA
# version): taken as given instead of read again (see KNOWN_HOST in probe-command.ts).
known = globals().get("KNOWN_HOST") or {}
started_at = None
out = {"errors": []}
host = {}

def run(cmd, timeout=10, stdin=None):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **({"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}))
        return p.returncode, p.stdout, p.stderr
    except FileNotFoundError:
        return 127, "", cmd[0] + ": not found"
    except subprocess.TimeoutExpired:
        return 124, "", " ".join(cmd[:3]) + ": timed out after %ss" % timeout

def flat(text, n=400):
    return " ".join(text.split())[:n]

def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except Exception:
        return None

def number(text):
    try:
        return int(text)
    except Exception:
        return None

def route_of(to, r):
    res = {"to": to}
    for k in ("dev", "prefsrc", "gateway"):
        if r.get(k):
            res[{"prefsrc": "src", "gateway": "via"}.get(k, k)] = r[k]
    return res

def route(to):
    code, so, se = run(["ip", "-j", "route", "get", to], 5)
    if code != 0:
        return {"to": to, "error": (se or so).strip() or "exit %d" % code}
    try:
        r = json.loads(so)[0]
    except Exception as e:
        return {"to": to, "error": "unreadable ip route output: %s" % e}
    return route_of(to, r)

def routes(targets):
    # Every lookup in one ip process (-batch: one JSON list per line, each naming its dst; -force: a
    # failing lookup does not end the rest): a node's peers cost one process, not one each. A target
    # the batch did not answer is asked alone, so its error is the one ip gives for it.
    got = {}
    if len(set(targets)) > 1:
        code, so, se = run(["ip", "-j", "-force", "-batch", "-"], 5, "".join("route get %s\n" % t for t in targets))
        for line in so.splitlines():
            try:
                r = json.loads(line)[0]
            except Exception:
                continue
            if isinstance(r, dict) and r.get("dst") in targets and r["dst"] not in got:
                got[r["dst"]] = route_of(r["dst"], r)
    return {t: got.get(t) or route(t) for t in targets}

# Ports are probed on threads while the rest runs: a dropped port costs its timeout once, not per port.
ports = []
def probe_port(p):
    res = {"peer": p["peer"], "ip": p["ip"], "port": p["port"], "purpose": p["purpose"]}
    try:
        s = socket.create_connection((p["ip"], p["port"]), 2)
        s.close()
        res["state"] = "open"
    except ConnectionRefusedError:
        res["state"] = "refused"
    except socket.timeout:
        res["state"] = "timeout"
        res["detail"] = "no answer within 2 s"
    except Exception as e:
        res["state"] = "error"
        res["detail"] = flat(str(e), 200)
    ports.append(res)
threads = [threading.Thread(target=probe_port, args=(p,)) for p in args.get("ports", [])]

# Head -> worker SSH over the fabric (relay), every worker on its own thread while the rest runs:
# one handshake's time in all, not one per worker one after the other.
relay = [None] * len(args.get("relay", []))
def probe_relay(i, t):
    c, so2, se2 = run(["ssh"] + args.get("sshOptions", []) + ["-p", str(t["port"]), "-l", t["user"], t["ip"], "true"], 15)
    relay[i] = {"ip": t["ip"], "code": c, "output": flat(se2 or so2)}
relay_threads = [threading.Thread(target=probe_relay, args=(i, t)) for i, t in enumerate(args.get("relay", []))]
for t in threads + relay_threads:
    t.start()

out["hostname"] = socket.gethostname()
host["kernel"] = os.uname().release
host["machine"] = os.uname().machine

def sysnet(name, key):
    return read("/sys/class/net/%s/%s" % (name, key))

ifaces = []
code, so, se = run(["ip", "-j", "addr"], 5)
if code == 0:
    for i in json.loads(so):
        ifaces.append({
            "name": i.get("ifname"),
            "up": "UP" in i.get("flags", []) or i.get("operstate") == "UP",
            "flags": i.get("flags", []),
            "addresses": ["%s/%s" % (a["local"], a["prefixlen"]) for a in i.get("addr_info", []) if a.get("local")],
        })
else:
    out["errors"].append("ip -j addr: " + (se or so).strip())
    # Without iproute2 (a minimal host), the kernel still lists its links.
    try:
        for name in sorted(os.listdir("/sys/class/net")):
            ifaces.append({"name": name, "up": sysnet(name, "operstate") == "up", "addresses": []})
    except Exception:
        pass
for i in ifaces:
    state = sysnet(i["name"], "operstate")
    if state:
        i["operstate"] = state
    mtu = number(sysnet(i["name"], "mtu"))
    if mtu is not None:
        i["mtu"] = mtu
    # -1 (virtio, no carrier) and EINVAL (loopback, virtual links): the kernel does not know the speed.
    speed = number(sysnet(i["name"], "speed"))
    if speed is not None and speed > 0:
        i["speedMbps"] = speed
out["interfaces"] = ifaces
looked_up = routes(["8.8.8.8"] + [p["ip"] for p in args["peers"]])
out["defaultRoute"] = looked_up["8.8.8.8"]

peers = []
for p in args["peers"]:
    r = looked_up[p["ip"]]
    peer = {"peer": p["name"], "ip": p["ip"], "route": r}
    if "error" not in r:
        if shutil.which("ping"):
            c, so2, se2 = run(["ping", "-n", "-c", "1", "-W", "2", p["ip"]], 5)
            lines = (se2 or so2).strip().splitlines()
            peer["reachable"] = c == 0
            peer["detail"] = "ping: ok" if c == 0 else "ping: " + (lines[-1] if lines else "no reply")
        else:
            try:
                s = socket.create_connection((p["ip"], p.get("port", 22)), 3)
                s.close()
                peer["reachable"], peer["detail"] = True, "tcp/%s: ok" % p.get("port", 22)
            except ConnectionRefusedError:
                peer["reachable"], peer["detail"] = True, "tcp/%s: refused, so the host answered" % p.get("port", 22)
            except Exception as e:
                peer["reachable"], peer["detail"] = False, "tcp/%s: %s" % (p.get("port", 22), e)
    peers.append(peer)
out["peers"] = peers

gpus = []
fields = ["index", "name", "uuid", "memory.total", "memory.free", "driver_version"]
code, so, se = run(["nvidia-smi", "--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits"], 15)
if code == 0:
    unified = False
    for line in so.strip().splitlines():
        parts = [x.strip() for x in line.split(",")]
        if len(parts) < 2 or not parts[0].isdigit():
            continue
        g = {"index": int(parts[0]), "name": parts[1]}
        if len(parts) > 2 and parts[2]:
            g["uuid"] = parts[2]
        total = number(parts[3]) if len(parts) > 3 else None
        free = number(parts[4]) if len(parts) > 4 else None
        if total is not None:
            g["memoryTotalMiB"] = total
        if free is not None:
            g["memoryFreeMiB"] = free
        if len(parts) > 5 and parts[5] and "driverVersion" not in host:
            host["driverVersion"] = parts[5]
        # GB10 (DGX Spark) shares the host's memory; its driver reports no memory of its own ([N/A]).
        if total is None or "GB10" in parts[1]:
            unified = True
        gpus.append(g)
    if gpus:
        host["unifiedMemory"] = unified
    if known.get("cudaVersion"):
        host["cudaVersion"] = known["cudaVersion"]
    else:
        c2, so2, se2 = run(["nvidia-smi"], 15)
        m = re.search(r"CUDA Version:\s*([0-9.]+)", so2)
        if m:
            host["cudaVersion"] = m.group(1)
else:
    host["gpuError"] = {"missing": code == 127, "error": flat((se or so).strip() or "exit %d" % code)}
    out["errors"].append("nvidia-smi: " + host["gpuError"]["error"])
out["gpus"] = gpus
m = re.search(r"Kernel Module(?: for \S+)?\s+([0-9][0-9.]*)", read("/proc/driver/nvidia/version") or "")
if m:
    host["driverVersion"] = m.group(1)

meminfo = read("/proc/meminfo") or ""
for key, name in (("MemTotal", "memTotalBytes"), ("MemAvailable", "memAvailableBytes")):
    m = re.search(r"^%s:\s+(\d+) kB" % key, meminfo, re.M)
    if m:
        host[name] = int(m.group(1)) * 1024

try:
    host["rdmaDevices"] = sorted(os.listdir("/sys/class/infiniband"))
except FileNotFoundError:
    host["rdmaDevices"] = []
except Exception:
    pass

code, so, se = run(["dmesg"], 3)
dmesg = so if code == 0 else None

docker = {"ok": False}

def docker_root_free(root):
    try:
        st = os.statvfs(root)
        docker["rootFreeBytes"] = st.f_bavail * st.f_frsize
    except Exception as e:
        out["errors"].append("free space under %s: %s" % (root, e))

# The legacy prestart hook: dockerd registers its --gpus device driver when this is on its PATH.
hook = shutil.which("nvidia-container-runtime-hook")
if hook:
    docker["nvidiaHook"] = hook
kd = known.get("docker")
if kd and kd.get("ok") and kd.get("rootDir"):
    docker.update({k: v for k, v in kd.items() if k not in ("rootFreeBytes", "nvidiaHook")})
    # Free space is read again: an image may have landed since.
    docker_root_free(kd["rootDir"])
else:
    # dockerd's socket where the CLI would ask it (docker_api); the CLI where not, or where that failed.
    def engine(info):
        return isinstance(info, dict) and info.get("ServerVersion") and str(info.get("DockerRootDir", "")).startswith("/")
    api = docker_api("/info", 15)
    info = api[1] if api and api[0] == 200 and engine(api[1]) else None
    code, so, se = (0, "", "") if info else run(["docker", "info", "--format", "{{json .}}"], 15)
    if code == 0 and not info:
        try:
            info = json.loads(so)
        except Exception:
            pass
    if engine(info):
        docker.update({"ok": True, "version": info["ServerVersion"], "rootDir": info["DockerRootDir"], "runtimes": sorted((info.get("Runtimes") or {}).keys())})
        # CDI: the spec directories dockerd reads (none: CDI is off) and the CDI devices it found there.
        if "CDISpecDirs" in info:
            docker["cdiSpecDirs"] = [str(d) for d in (info.get("CDISpecDirs") or [])]
        if isinstance(info.get("DiscoveredDevices"), list):
            docker["cdiDevices"] = sorted(str(d.get("ID")) for d in info["DiscoveredDevices"] if isinstance(d, dict) and d.get("Source") == "cdi" and d.get("ID"))
        docker_root_free(info["DockerRootDir"])
    else:
        docker["missing"] = code == 127
        err = (se or so).strip()
        if isinstance(info, dict) and info.get("ServerErrors"):
            err = "; ".join(str(e) for e in info["ServerErrors"])
        docker["error"] = "exit %d: %s" % (code, flat(err or "docker info printed no server version"))
host["docker"] = docker

# The NVIDIA container tooling besides docker: nvidia-cdi-hook (docker 29.2+ serves --gpus through CDI
# with it), the NVIDIA runtime's mode, and each CDI spec dockerd or the runtime would read. A spec names
# the driver's files by version (libcuda.so.580.95.05): after a driver upgrade they are gone.
if "nvidiaContainer" in known:
    nv = known["nvidiaContainer"]
else:
    nv = {"cdiSpecs": []}
    cdi_hook = shutil.which("nvidia-cdi-hook")
    if cdi_hook:
        nv["cdiHook"] = cdi_hook
    section = None
    for line in (read("/etc/nvidia-container-runtime/config.toml") or "").splitlines():
        s = line.strip()
        if s.startswith("["):
            section = s.strip("[]").strip()
        elif section == "nvidia-container-runtime":
            m = re.match(r'mode\s*=\s*"([^"]*)"', s)
            if m:
                nv["runtimeMode"] = m.group(1)
    RUNTIME_STATE = ("/dev/", "/run/", "/var/run/", "/proc/", "/sys/", "/tmp/")
    # dockerd's directories and CDI's defaults (the NVIDIA runtime's), lowest priority first: a later spec of a kind wins.
    spec_dirs, seen = [], set()
    for d in (docker.get("cdiSpecDirs") or []) + ["/etc/cdi", "/var/run/cdi"]:
        real = os.path.realpath(d)
        if real not in seen:
            seen.add(real)
            spec_dirs.append(d)
    for d in spec_dirs:
        try:
            names = sorted(n for n in os.listdir(d) if n.endswith((".yaml", ".yml", ".json")))
        except Exception:
            continue
        for n in names[:20]:
            path = os.path.join(d, n)
            try:
                with open(path, errors="replace") as f:
                    text = f.read(4000000)
            except Exception as e:
                nv["cdiSpecs"].append({"path": path, "driverVersions": [], "hostPaths": 0, "missing": [], "missingCount": 0, "error": flat(str(e), 200)})
                continue
            if n.endswith(".json"):
                try:
                    doc = json.loads(text)
                except Exception as e:
                    nv["cdiSpecs"].append({"path": path, "driverVersions": [], "hostPaths": 0, "missing": [], "missingCount": 0, "error": flat("not JSON: %s" % e, 200)})
                    continue
                kind = doc.get("kind") if isinstance(doc, dict) else None
                found = []
                def walk(x):
                    if isinstance(x, dict):
                        for k, v in x.items():
                            if k == "hostPath" and isinstance(v, str):
                                found.append(v)
                            else:
                                walk(v)
                    elif isinstance(x, list):
                        for v in x:
                            walk(v)
                walk(doc)
                paths = sorted(set(found))
            else:
                # YAML without a YAML library: the top-level kind and every hostPath value, quoted or not.
                m = re.search(r'^kind:\s*["\']?([^"\'\s]+)', text, re.M)
                kind = m.group(1) if m else None
                paths = sorted(set(re.findall(r'hostPath:\s*["\']?([^"\'\s]+)', text)))
            if kind is not None and "nvidia" not in str(kind):
                continue
            versions = set()
            for p in paths:
                m = re.search(r"\.so\.(\d{3,}\.\d+(?:\.\d+)?)$", p) or re.search(r"/firmware/nvidia/(\d{3,}\.\d+(?:\.\d+)?)/", p)
                if m:
                    versions.add(m.group(1))
            # Device nodes and sockets are runtime state, absent on an idle host: only files count.
            files = [p for p in paths if p.startswith("/") and not p.startswith(RUNTIME_STATE)]
            missing = [p for p in files if not os.path.lexists(p)]
            spec = {"path": path, "driverVersions": sorted(versions), "hostPaths": len(files), "missing": missing[:5], "missingCount": len(missing)}
            if kind:
                spec["kind"] = kind
            nv["cdiSpecs"].append(spec)
host["nvidiaContainer"] = nv

# A user-space OOM killer that acts before the kernel's (which on unified memory may come too late):
# each known one's systemd unit state, and whether a process of that name runs (in a container too).
if "oomGuards" in known:
    guards = known["oomGuards"]
else:
    GUARDS = ["earlyoom", "systemd-oomd", "nohang", "nohang-desktop"]
    guards = {"running": []}
    code, so, se = run(["systemctl", "is-active"] + [g + ".service" for g in GUARDS], 5)
    states = so.split()
    if len(states) == len(GUARDS):
        guards["units"] = dict(zip(GUARDS, states))
    else:
        guards["unitsError"] = flat((se or so).strip() or "exit %d" % code, 200)
    running = set()
    try:
        for d in os.listdir("/proc"):
            if d.isdigit():
                comm = read("/proc/%s/comm" % d)
                if comm in GUARDS or comm == "oomd":
                    running.add(comm)
    except Exception:
        pass
    guards["running"] = sorted(running)
host["oomGuards"] = guards

# The tool's own data directories (the release state: releases, the lock, the audit log): free
# space on the filesystem that holds each, read at its nearest existing ancestor before a first deploy.
data_dirs = []
for d in args.get("dataDirs", []):
    at = d["path"]
    while not os.path.isdir(at) and at not in ("/", ""):
        at = os.path.dirname(at)
    try:
        st = os.statvfs(at or "/")
        data_dirs.append({"label": d["label"], "path": d["path"], "statPath": at or "/", "freeBytes": st.f_bavail * st.f_frsize, "totalBytes": st.f_blocks * st.f_frsize})
    except Exception as e:
        out["errors"].append("free space under %s: %s" % (d["path"], e))
if data_dirs:
    host["dataDirs"] = data_dirs

for t in relay_threads:
    t.join()
if args.get("relay"):
    host["relay"] = relay
out["host"] = host

name = args["container"]
if docker["ok"]:
    # The container's inspect document from dockerd's socket (404: none of that name, as the CLI's
    # "No such container"), else from the CLI.
    api = docker_api("/containers/%s/json" % name, 15) if re.match(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", name) else None
    if api and api[0] == 200 and isinstance(api[1], dict):
        code, so, se, c = 0, "", "", api[1]
    elif api and api[0] == 404:
        code, so, se, c = 1, "", "Error: No such container: %s" % name, None
    else:
        code, so, se = run(["docker", "inspect", "--type", "container", name], 15)
        c = json.loads(so)[0] if code == 0 else None
    if code == 0:
        env = {}
        for kv in c.get("Config", {}).get("Env") or []:
            k, _, v = kv.partition("=")
            if k in ENV_NAMES:
                env[k] = v
        cont = {"name": name, "running": bool(c.get("State", {}).get("Running")), "env": env, "versions": {}}
        if cont["running"]:
            started_at = c.get("State", {}).get("StartedAt")
        if c.get("Config", {}).get("Image"):
            cont["imageRef"] = c["Config"]["Image"]
        if c.get("Image"):
            cont["imageId"] = c["Image"]
        if cont["running"] and args.get("exec", True):
            # On the head, Ray's view comes from the same Python process (RAY_PY after CONTAINER_PY).
            program = "ENV_NAMES = %s\n" % json.dumps(ENV_NAMES) + CONTAINER_PY + ("\n" + RAY_PY if args.get("ray") else "")
            code, so, se = run(["docker", "exec", name, "python3", "-c", program], 90 if args.get("ray") else 60)
            lines = so.splitlines()
            ray_at = [i for i, l in enumerate(lines) if l.startswith("@@ray ")]
            # CONTAINER_PY's line is the last one before Ray's (the last line on a worker).
            inside_lines = [l for l in lines[: ray_at[0] if ray_at else len(lines)] if l.strip()]
            try:
                inside = json.loads(inside_lines[-1])
                inside.pop("importErrors", None)
                cont.update(inside)
            except Exception:
                out["errors"].append("probe inside %s failed: %s" % (name, (se or so).strip()[-500:]))
            if args.get("ray"):
                try:
                    r = json.loads(lines[ray_at[-1]][len("@@ray "):])
                except Exception:
                    r = {"nodes_error": ((se or so).strip()[-800:] or "exit %d" % code)}
                if "nodes" in r:
                    out["rayNodes"] = r["nodes"]
                else:
                    out["rayError"] = r.get("nodes_error") or "no node list"
                if "status" in r:
                    out["rayStatus"] = r["status"]
        out["container"] = cont
    elif "No such" in (se + so) or "no such" in (se + so):
        out["container"] = None
    else:
        out["errors"].append("docker inspect %s: %s" % (name, (se or so).strip() or "exit %d" % code))
# The kernel log's GPU out-of-memory and OOM-killer lines, since the release's container started
# (the start-up the lines belong to), else of the last hour: older ones are another run's.
if dmesg is not None:
    since = time.time() - args.get("kernelLogWindowSeconds", 3600)
    started = str((started_at or ""))[:19]
    try:
        since = calendar.timegm(time.strptime(started, "%Y-%m-%dT%H:%M:%S"))
    except Exception:
        pass
    try:
        boot = time.time() - float((read("/proc/uptime") or "0").split()[0])
    except Exception:
        boot = None
    pat = re.compile(r"NV_ERR_NO_MEMORY|Out of memory|oom-kill|invoked oom-killer")
    hits = []
    for l in dmesg.splitlines():
        if not pat.search(l):
            continue
        m = re.match(r"\s*\[\s*(\d+(?:\.\d+)?)\]", l)
        if m and boot is not None and boot + float(m.group(1)) < since:
            continue
        hits.append(l.strip()[:300])
    host["kernelLog"] = hits[-10:]
for t in threads:
    t.join()
out["ports"] = sorted(ports, key=lambda p: (p["peer"], p["port"]))
print(json.dumps(out))
`,d=47613,c={"--node-manager-port":"Ray node manager (pinned)","--object-manager-port":"Ray object manager (pinned)","--min-worker-port":"Ray worker ports (first of the pinned range)"};function l(e,t){const o="mp"===e.vllm.executorBackend,s=o?[]:(e=>{const t=[];return e.forEach((o,s)=>{for(const[n,r]of Object.entries(c)){const i=o===n?e[s+1]:o.startsWith(`${n}=`)?o.slice(n.length+1):void 0,a=void 0!==i&&/^\d+$/.test(i)?Number(i):void 0;void 0!==a&&a>0&&a<65536&&t.push({port:a,purpose:r})}}),t})(e.ray.extraArgs),n=o?{port:e.vllm.masterPort,purpose:"vLLM's rendezvous store (vllm.masterPort, --master-port)"}:{port:e.ray.port,purpose:"Ray GCS (ray.port)"};return e.nodes.filter(e=>e.name!==t.name).flatMap(e=>[..."head"===e.role?[n]:[],...s,{port:d,purpose:"ephemeral range (NCCL, Ray workers)"}].map(t=>({peer:e.name,ip:e.fabricIp,...t})))}const m=120,p=[`CONTAINER_PY = ${JSON.stringify(r)}`,`RAY_PY = ${JSON.stringify(i)}`,`ENV_NAMES = ${JSON.stringify(["VLLM_HOST_IP","VLLM_HOST_PORT","VLLM_USE_RAY_V2_EXECUTOR_BACKEND","VLLM_USE_V1","NCCL_SOCKET_IFNAME","GLOO_SOCKET_IFNAME","TP_SOCKET_IFNAME","NCCL_IB_HCA","NCCL_IB_DISABLE","UCX_NET_DEVICES","RAY_ADDRESS","RAY_NODE_IP_ADDRESS","RAY_OVERRIDE_NODE_IP_ADDRESS","MASTER_ADDR","HOST_IP","CUDA_VISIBLE_DEVICES","NVIDIA_VISIBLE_DEVICES"])}`,n.k,a].join("\n");function u(e){const t=e?.ok?e.host:void 0;if(!t)return;const o={...t.docker?.ok&&t.docker.rootDir&&{docker:t.docker},...t.nvidiaContainer&&{nvidiaContainer:t.nvidiaContainer},...t.oomGuards&&{oomGuards:t.oomGuards},...t.cudaVersion&&{cudaVersion:t.cudaVersion}};return Object.keys(o).length>0?o:void 0}const f=e=>e?`KNOWN_HOST = __import__("json").loads(${JSON.stringify(JSON.stringify(e))})\n${p}`:p;function h(e,t,o={}){const n="full"===(o.mode??"full"),r=o.relay&&"head"===t.role?o.relay.targets:[],i={container:e.container.name,peers:e.nodes.filter(e=>e.name!==t.name).map(e=>({name:e.name,ip:e.fabricIp,port:22})),ray:n&&"head"===t.role&&"ray"===e.vllm.executorBackend,exec:n,ports:l(e,t),...r.length>0&&{relay:r,sshOptions:o.relay?.sshOptions},...void 0!==o.kernelLogWindowSeconds&&{kernelLogWindowSeconds:o.kernelLogWindowSeconds},...o.dataDirs&&o.dataDirs.length>0&&{dataDirs:o.dataDirs}};return{cmd:(0,s.vU)("python3","-",JSON.stringify(i)),stdin:f(o.knownHost)}}},6966:(e,t,o)=>{o.d(t,{U:()=>a});var s=o(3024),n=o(6760),r=o(1380),i=o(1628);async function a(...[e,t]){const{checkLaunchScript:s}=await Promise.all([o.e(914),o.e(288)]).then(o.bind(o,2288));return s(e,t.readSourced?t:{...t,readSourced:d((0,n.resolve)(t.path))})}function d(e,t=process.env){const o=((e,t)=>{for(let t=(0,n.dirname)(e);;t=(0,n.dirname)(t)){if((0,s.existsSync)((0,n.join)(t,".git")))return t;if((0,n.dirname)(t)===t)break}const o=t.GITHUB_WORKSPACE?(0,n.resolve)(t.GITHUB_WORKSPACE):void 0;return o&&c(o,e)?o:(0,n.dirname)(e)})(e,t),a=(0,s.existsSync)(o)?(0,s.realpathSync)(o):o;return e=>{const t=(0,n.resolve)(e);let o;try{o=(0,s.realpathSync)(t)}catch(e){const t=e.code;return(0,i.f)((0,i.C)("SOURCE_UNREADABLE","ENOENT"===t?"does not exist":`cannot be read (${t??e.message})`))}if(!c(a,o))return(0,i.f)((0,i.C)("SOURCE_UNREADABLE",`is outside the repository ${a}${o!==t?` (it resolves to ${o})`:""}`));const d=(0,s.statSync)(o);return d.isFile()?d.size>r.v7?(0,i.f)((0,i.C)("SOURCE_UNREADABLE",`is ${d.size} bytes, more than the ${r.v7} a launch script may be`)):(0,i.ok)((0,s.readFileSync)(o,"utf8")):(0,i.f)((0,i.C)("SOURCE_UNREADABLE","is not a regular file"))}}const c=(e,t)=>{const o=(0,n.relative)(e,t);return!o.startsWith("..")&&!(0,n.isAbsolute)(o)}}};